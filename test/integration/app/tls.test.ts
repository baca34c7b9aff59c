// The app over HTTPS (issue 27, section 1): the connection test and sign-in with the form's CA
// certificate ("More settings"), the words for each certificate problem pointing at that setting,
// and the connection state of a refused certificate ("refused", never "cannot be reached").
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';
import { makeTestCerts, tlsSandbox, type CertKind, type TestCerts } from '../../helpers/tls-certs.js';

let certs: TestCerts;
const sbs: Partial<Record<CertKind, RunningSandbox>> = {};
let env: CoreEnv;
beforeAll(async () => {
  certs = makeTestCerts();
  for (const k of ['good', 'expired', 'otherName', 'notYetValid', 'selfSigned'] as const) sbs[k] = await tlsSandbox(certs, k);
  env = await coreEnv();
}, 60_000);
afterAll(async () => {
  await env?.close();
  for (const s of Object.values(sbs)) await s?.close();
  certs?.remove();
});

const SETTING = 'add its CA with "CA certificate" under "More settings" on the Connection screen, then sign in again';

describe('connection.test', () => {
  it('not trusted without the CA; the same service passes with the CA certificate given', async () => {
    const url = sbs.good!.url;
    expect(await env.call('connection.test', { url, token: 'admin-token' })).toMatchObject({
      ok: false, message: `${url}: The certificate of the service is not trusted (issued by "DocSync Test Company CA"): your company's network may re-sign connections; ${SETTING}`,
    });
    expect(await env.call('connection.test', { url, token: 'admin-token', ca: certs.caPem })).toMatchObject({ ok: true, message: `${url} answered and accepted the token` });
  });

  it('self-signed, expired, another name, not valid yet: each in its words, none "cannot be reached"', async () => {
    // The test's answer names the address first, then the words.
    const test = async (k: CertKind) => (await env.call('connection.test', { url: sbs[k]!.url, token: 'admin-token', ca: certs.caPem })).message.replace(`${sbs[k]!.url}: `, '');
    expect(await test('selfSigned')).toMatch(/^The certificate of the service is not trusted \(issued by "127\.0\.0\.1"\): your company's network may re-sign connections; add its CA with "CA certificate"/);
    expect(await test('expired')).toBe(`The certificate of the service expired on ${certs.expiredOn.toISOString().slice(0, 16).replace('T', ' ')} UTC: whoever runs the service must renew it (if this computer's clock is wrong, set it right)`);
    expect(await test('otherName')).toBe('The certificate of the service is issued for service.example, docs.service.example, not for 127.0.0.1: check the address, or ask whoever runs the service');
    expect(await test('notYetValid')).toMatch(/^This computer's clock seems wrong: it says .* UTC; the certificate is valid from .* to .*\. Set the clock right, then try again$/);
  });

  it('a CA certificate that is not one is refused in words', async () => {
    const r = await env.call('connection.test', { url: sbs.good!.url, token: 'admin-token', ca: 'not a certificate' });
    expect(r).toMatchObject({ ok: false, message: 'the CA certificate holds no certificate: give the CA certificate in PEM form (a text file starting "-----BEGIN CERTIFICATE-----")' });
  });
});

describe('connection.signIn with the CA certificate', () => {
  it('signs in, keeps the PEM in the data home (0600) named in connection.json, goes online; the account says it has its own CA', async () => {
    const url = sbs.good!.url;
    const info = await env.call('connection.signIn', { url, token: 'admin-token', ca: certs.caPem });
    expect(info.account).toMatchObject({ url, ownCa: true });
    expect(info.connection).toMatchObject({ kind: 'online', url });
    const saved = JSON.parse(await readFile(join(env.home, 'connection.json'), 'utf8')) as Record<string, unknown>;
    expect(saved.caFile).toBe('connection-ca.pem');
    expect(JSON.stringify(saved)).not.toContain('admin-token');
    expect((await stat(join(env.home, 'connection-ca.pem'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(env.home, 'connection-ca.pem'), 'utf8')).toBe(certs.caPem.trim() + '\n');
  });
});
