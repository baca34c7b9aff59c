/**
 * The client over HTTPS against a real sandbox on 127.0.0.1 with certificates the test makes
 * (test/helpers/tls-certs.ts): the main paths (single and multipart upload, results paging, the files
 * API's conditional create) with the connection's CA trusted, and each certificate problem refused
 * at once as kind 'certificate', with the facts its words need.
 */
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient, type ClientConfig } from '../../../electron/engine/service/index.js';
import { readFileSync } from 'node:fs';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { serviceProblem, type CertificateFacts } from '../../../shared/ui/messages.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { makeTestCerts, tlsSandbox, type CertKind, type TestCerts } from '../../helpers/tls-certs.js';
import { batchFilePath, failure, FAST_RETRY } from './env.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';

const PART = 64 * 1024;
let certs: TestCerts;
let sb: RunningSandbox;
let dir: string;
const clients: ServiceClient[] = [];

function client(url: string, extra: Partial<ClientConfig> = {}): ServiceClient {
  const c = new ServiceClient({ baseUrl: url, token: 'admin-token', retry: FAST_RETRY, ...extra });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  certs = makeTestCerts();
  sb = await tlsSandbox(certs, 'good', { partSize: PART, resultsPageSize: 2 });
  dir = await mkdtemp(join(tmpdir(), 'docsync-tls-'));
});
afterAll(async () => {
  for (const c of clients) c.close();
  await sb?.close();
  certs?.remove();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('over HTTPS with the connection\'s CA', () => {
  it('the sandbox answers on https://127.0.0.1', () => {
    expect(sb.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('a single file upload, then reading it back', async () => {
    const c = client(sb.url, { ca: certs.caPem });
    const { id } = await c.createBatch({ name: 'tls-single' });
    const path = join(dir, 'one.bin');
    const data = randomBytes(30_000);
    await writeFile(path, data);
    await c.putBatchFile(id, 'one.bin', path);
    const back = join(dir, 'one-back.bin');
    await c.downloadFile(batchFilePath(await c.getBatch(id), 'one.bin'), back);
    expect((await readFile(back)).equals(data)).toBe(true);
  });

  it('a multipart upload of 9 parts, 4 at once, read back whole', async () => {
    const c = client(sb.url, { ca: certs.caPem });
    const { id } = await c.createBatch({ name: 'tls-multi' });
    const path = join(dir, 'big.bin');
    const data = randomBytes(8 * PART + 500);
    await writeFile(path, data);
    const r = await c.uploadMultipart(id, 'big.bin', path, { concurrency: 4 });
    expect(r.parts).toHaveLength(9);
    const back = join(dir, 'big-back.bin');
    await c.downloadFile(batchFilePath(await c.getBatch(id), 'big.bin'), back);
    expect((await readFile(back)).equals(data)).toBe(true);
  });

  it('results paging: every page of a run of 5 files, 2 a page (the pooled raw GET path)', async () => {
    const c = client(sb.url, { ca: certs.caPem });
    const { id } = await c.createBatch({ name: 'tls-results', workspace: 'team' });
    for (let i = 1; i <= 5; i++) {
      const path = join(dir, `r${i}.txt`);
      await writeFile(path, invoiceText({ invoiceNumber: `INV-${i}`, invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: `$${i}0.00`, vendor: 'Acme' }));
      await c.putBatchFile(id, `r${i}.txt`, path);
    }
    const run = await c.startDeploymentRun('sandbox-invoices', { batch_id: id });
    if (!run.id) throw new Error('the run has no id');
    expect((await c.waitForRun(run.id, { initialDelayMs: 10, maxDelayMs: 50, timeoutMs: 20_000 })).state).toBe('complete');
    const offsets: number[] = [];
    const names: (string | null)[] = [];
    for await (const p of c.iterateResults(run.id as string, {})) {
      offsets.push(p.fileOffset);
      names.push(...p.page.files.map((f) => f.original_file_name));
    }
    expect(offsets).toEqual([0, 2, 4]);
    expect(names).toEqual(['r1.txt', 'r2.txt', 'r3.txt', 'r4.txt', 'r5.txt']);
  });

  it('the files API\'s conditional create: 201, then 412 because it exists', async () => {
    const c = client(sb.url, { ca: certs.caPem });
    expect(await c.writeFile('svc-drive/tls/new.txt', Buffer.from('first'), { ifNoneMatch: true })).toMatchObject({ created: true, status: 201 });
    expect(await failure(() => c.writeFile('svc-drive/tls/new.txt', Buffer.from('second'), { ifNoneMatch: true }))).toMatchObject({ kind: 'http', status: 412 });
    expect((await c.readFile('svc-drive/tls/new.txt')).data.toString()).toBe('first');
  });

  it('a lane (the shared folders\' client) trusts the same CA', async () => {
    const lane = client(sb.url, { ca: certs.caPem }).lane(1);
    clients.push(lane);
    expect((await lane.listBatches({ limit: 1 })).batches.length).toBeGreaterThanOrEqual(0);
  });
});

describe('certificate problems: refused at once (no retries), kind "certificate", with the facts', () => {
  let bad: Partial<Record<CertKind, RunningSandbox>> = {};
  beforeAll(async () => {
    bad = {};
    for (const k of ['expired', 'otherName', 'notYetValid', 'selfSigned', 'otherCa'] as const) bad[k] = await tlsSandbox(certs, k);
  });
  afterAll(async () => {
    for (const s of Object.values(bad)) await s?.close();
  });

  async function refusal(url: string, ca?: string) {
    const retries: unknown[] = [];
    const e = await failure(() => client(url, { ...(ca ? { ca } : {}), onRetry: (r) => retries.push(r) }).listBatches({ limit: 1 }));
    expect(retries).toEqual([]);
    expect(e).toMatchObject({ kind: 'certificate', attempts: 1 });
    return e as unknown as { code: string; certificate: CertificateFacts; kind: string; message: string };
  }

  it('the test CA not given: not trusted (the same certificate passes with it, above)', async () => {
    const e = await refusal(sb.url);
    expect(e.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(e.certificate).toMatchObject({ problem: 'untrusted', host: '127.0.0.1', issuer: 'DocSync Test Company CA' });
    expect(serviceProblem(e)).toMatch(/^the certificate of the service is not trusted \(issued by "DocSync Test Company CA"\): your company's network may re-sign connections; add its CA with /);
  });

  it('self-signed, and issued by a CA nobody trusts: not trusted', async () => {
    expect((await refusal(bad.selfSigned!.url, certs.caPem)).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    const other = await refusal(bad.otherCa!.url, certs.caPem);
    expect(other.certificate).toMatchObject({ problem: 'untrusted', issuer: 'Some Other CA' });
  });

  it('expired: its end date', async () => {
    const e = await refusal(bad.expired!.url, certs.caPem);
    expect(e.code).toBe('CERT_HAS_EXPIRED');
    expect(e.certificate).toMatchObject({ problem: 'expired', validTo: certs.expiredOn.toISOString() });
    const date = certs.expiredOn.toISOString().slice(0, 16).replace('T', ' ');
    expect(serviceProblem(e)).toBe(`the certificate of the service expired on ${date} UTC: whoever runs the service must renew it (if this computer's clock is wrong, set it right)`);
  });

  it('for another name: which names', async () => {
    const e = await refusal(bad.otherName!.url, certs.caPem);
    expect(e.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(serviceProblem(e)).toBe('the certificate of the service is issued for service.example, docs.service.example, not for 127.0.0.1: check the address, or ask whoever runs the service');
  });

  it('not valid yet: this computer\'s clock', async () => {
    const e = await refusal(bad.notYetValid!.url, certs.caPem);
    expect(e.code).toBe('CERT_NOT_YET_VALID');
    expect(e.certificate).toMatchObject({ problem: 'clock', validFrom: certs.validFrom.toISOString() });
    expect(serviceProblem(e)).toMatch(/^this computer's clock seems wrong: it says \d{4}-\d\d-\d\d \d\d:\d\d UTC; the certificate is valid from .* to .*\. Set the clock right, then try again$/);
  });

  it('expired here, but the service\'s own clock (its Date) is inside the certificate\'s dates: this computer\'s clock, and by how much', async () => {
    const f = certs.files.expired;
    const serviceNow = new Date(certs.expiredOn.getTime() - 10 * 86_400_000);
    const srv = createServer({ cert: readFileSync(f.cert), key: readFileSync(f.key) }, (_q, s) => {
      s.sendDate = false;
      s.setHeader('Date', serviceNow.toUTCString());
      s.end();
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const e = await refusal(`https://127.0.0.1:${(srv.address() as AddressInfo).port}`, certs.caPem);
      expect(e.certificate).toMatchObject({ problem: 'clock' });
      expect(serviceProblem(e)).toMatch(/^this computer's clock seems wrong \(13 days ahead of the service's\): it says /);
    } finally {
      srv.close();
    }
  });

  it('never reads as "cannot be reached"', async () => {
    for (const s of Object.values(bad)) {
      const e = await refusal(s!.url, certs.caPem);
      expect(serviceProblem(e, { caFile: 'X' })).not.toMatch(/cannot be reached/);
    }
  });
});

describe('the sandbox\'s own CA (--tls)', () => {
  it('makes a CA and a certificate for 127.0.0.1 in DATA/tls/, trusted through the CA file it names; a restart keeps the same CA', async () => {
    const { startSandbox } = await import('../../../sandbox/index.js');
    const data = join(dir, 'self-tls');
    const first = await startSandbox({ port: 0, dataDir: data, tls: 'self' });
    let ca: string;
    try {
      expect(first.caFile).toBe(join(data, 'tls', 'ca.pem'));
      ca = readFileSync(first.caFile as string, 'utf8');
      expect((await client(first.url, { ca }).listBatches({ limit: 1 })).batches).toBeDefined();
      expect(await failure(() => client(first.url).listBatches({ limit: 1 }))).toMatchObject({ kind: 'certificate' });
    } finally {
      await first.close();
    }
    const again = await startSandbox({ port: 0, dataDir: data, tls: 'self' });
    try {
      expect(readFileSync(again.caFile as string, 'utf8')).toBe(ca);
      expect((await client(again.url, { ca }).listBatches({ limit: 1 })).batches).toBeDefined();
    } finally {
      await again.close();
    }
  });
});
