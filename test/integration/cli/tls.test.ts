// The docsync command over HTTPS (issue 27, section 1): `serve` end to end with DOCSYNC_URL=https://...
// and DOCSYNC_CA_FILE, `login --ca-file` into a real keychain (the copy kept 0600 and used by later
// commands), and each certificate problem in the command's words, never "cannot be reached".
import { readFile, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import { makeTestCerts, tlsSandbox, type CertKind, type TestCerts } from '../../helpers/tls-certs.js';
import { buildIfNeeded, cliEnv, lineMatching, type Cli, inKeychainSession, keychainMissing, NODE_MAIN } from './cli-env.js';

const missing = keychainMissing;

let certs: TestCerts;
const sbs: Partial<Record<CertKind, RunningSandbox>> = {};
let cli: Cli;
beforeAll(async () => {
  await buildIfNeeded();
  certs = makeTestCerts();
  for (const k of ['good', 'expired', 'otherName', 'notYetValid'] as const) sbs[k] = await tlsSandbox(certs, k);
  cli = await cliEnv();
}, 120_000);
afterAll(async () => {
  for (const s of Object.values(sbs)) await s?.close();
  await cli?.close();
  certs?.remove();
});

const ADD_CA = 'add its CA with "docsync login --url URL --ca-file FILE" (or DOCSYNC_CA_FILE=FILE for one command)';

describe('certificate problems in the command\'s words', () => {
  it('login without the CA: not trusted, and how to add it; nothing saved', async () => {
    const url = sbs.good!.url;
    const r = await cli.run(['login', '--url', url], { input: 'admin-token' });
    expect(r.stderr.trimEnd()).toBe(`docsync: the certificate of ${url} is not trusted (issued by "DocSync Test Company CA"): your company's network may re-sign connections; ${ADD_CA}`);
    expect(r.code).toBe(1);
    await expect(stat(join(cli.home, 'connection.json'))).rejects.toThrow();
  });

  it('login --ca-file with an expired certificate, one for another name, one not valid yet', async () => {
    const at = (k: CertKind) => cli.run(['login', '--url', sbs[k]!.url, '--ca-file', certs.caFile], { input: 'admin-token' });
    const date = certs.expiredOn.toISOString().slice(0, 16).replace('T', ' ');
    expect((await at('expired')).stderr.trimEnd()).toBe(`docsync: the certificate of ${sbs.expired!.url} expired on ${date} UTC: whoever runs the service must renew it (if this computer's clock is wrong, set it right)`);
    expect((await at('otherName')).stderr.trimEnd()).toBe(`docsync: the certificate of ${sbs.otherName!.url} is issued for service.example, docs.service.example, not for 127.0.0.1: check the address, or ask whoever runs the service`);
    const clock = await at('notYetValid');
    expect(clock.stderr.trimEnd()).toMatch(/^docsync: this computer's clock seems wrong: it says .* UTC; the certificate is valid from .* UTC to .* UTC\. Set the clock right, then try again$/);
    expect(clock.code).toBe(1);
  });

  it('a --ca-file that holds no certificate is a mistake on the command line (exit 2), before the token is read', async () => {
    const notPem = cli.dir('not.pem');
    await writeFile(notPem, 'hello');
    const r = await cli.run(['login', '--url', sbs.good!.url, '--ca-file', notPem], { input: 'admin-token' });
    expect(r.stderr.trimEnd()).toBe(`docsync: ${notPem} holds no certificate: give the CA certificate in PEM form (a text file starting "-----BEGIN CERTIFICATE-----")`);
    expect(r.code).toBe(2);
  });

  it('serve stops at once on a refused certificate, in the same words', async () => {
    const url = sbs.good!.url;
    const r = await cli.run(['serve', '--no-ui'], { env: { DOCSYNC_URL: url, DOCSYNC_TOKEN: 'admin-token' } });
    expect(r.stderr.trimEnd()).toBe(`docsync: the certificate of ${url} is not trusted (issued by "DocSync Test Company CA"): your company's network may re-sign connections; ${ADD_CA}`);
    expect(r.code).toBe(1);
  });
});

describe('over HTTPS with the CA given', () => {
  it('serve with DOCSYNC_URL=https://... and DOCSYNC_CA_FILE: a dropped invoice is uploaded, processed and its results stored', async () => {
    const c = await cliEnv({ url: sbs.good!.url, token: 'admin-token' });
    try {
      const env = { DOCSYNC_CA_FILE: certs.caFile };
      const inbox = c.dir('inbox');
      await mkdir(inbox);
      const added = await c.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--stability', '150', '--quiet', '300', '--rescan', '1000'], { env });
      expect(added.code, added.stderr).toBe(0);
      const { child, exit } = c.spawn(['serve', '--no-ui'], { env });
      try {
        await lineMatching(child, /^engine running$/);
        await writeFile(join(inbox, 'inv-9.pdf'), await invoicePdf({ invoiceNumber: 'INV-9', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$9.00', vendor: 'Nine Ltd' }));
        await lineMatching(child, /^done\s+.*inv-9\.pdf$/, 30_000);
        child.kill('SIGINT');
        expect(await exit).toMatchObject({ code: 0, signal: null });
      } finally {
        child.kill('SIGKILL');
      }
      const results = await c.run(['results'], { env });
      expect(results.code, results.stderr).toBe(0);
      expect(results.stdout).toContain('INV-9');
    } finally {
      await c.close();
    }
  }, 60_000);

  it.skipIf(missing.length > 0)(`login --ca-file keeps a private copy in the data home, named in connection.json, used by later commands; logout forgets it${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`, async () => {
    const url = sbs.good!.url;
    const r = await inKeychainSession(cli, [
      `printf %s admin-token | ${NODE_MAIN} login --url ${url} --ca-file ${JSON.stringify(certs.caFile)}; echo "login=$?"`,
      `cat "$DOCSYNC_HOME/connection.json"; echo`,
      `stat -c 'mode=%a' "$DOCSYNC_HOME/connection-ca.pem"`,
      `${NODE_MAIN} retry 424242 2>&1; echo "retry=$?"`,
      `${NODE_MAIN} logout; echo "logout=$?"`,
      `test -e "$DOCSYNC_HOME/connection-ca.pem"; echo "ca-left=$?"`,
    ]);
    const out = r.stdout;
    expect(out, r.stderr).toMatch(/^signed in to https:\/\/127\.0\.0\.1:\d+; token stored in the keychain as "default"; its CA certificate kept in the data folder$/m);
    expect(out).toMatch(/^login=0$/m);
    expect(out).toContain('"caFile": "connection-ca.pem"');
    expect(out).not.toContain('admin-token');
    expect(out).toMatch(/^mode=600$/m);
    // The saved CA was trusted: the service answered, and only the file id was unknown.
    expect(out).toMatch(/^docsync: no file with id 424242 \(see: docsync files --state failed\)\nretry=2$/m);
    expect(out).toMatch(/^logout=0$/m);
    expect(out).toMatch(/^ca-left=1$/m);
    expect(await readFile(certs.caFile, 'utf8')).toContain('BEGIN CERTIFICATE');
  }, 60_000);
});
