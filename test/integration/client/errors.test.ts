/**
 * Typed errors: a 200 that is not the expected JSON, the token kept out of every message, timeouts,
 * cancellation, and configuration mistakes. Malformed answers and hung or echoing servers come from
 * the scripted server (wire-server.ts); the rest from the sandbox.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceClient, ServiceError, type ClientConfig } from '../../../electron/engine/service/index.js';
import { clientEnv, failure, type ClientEnv } from './env.js';
import { json, wireClients } from './wire-server.js';

const TOKEN = 'tok-SECRET-42';
let env: ClientEnv;

beforeAll(async () => {
  env = await clientEnv();
});
afterAll(() => env.close());
const wire = wireClients({ token: TOKEN, retry: { limit: 1, baseDelayMs: 1, maxDelayMs: 2 } });
const { client } = wire;

describe("a 200 whose body is not the expected JSON is a 'bad-response' error", () => {
  it('an HTML page (a proxy or portal) instead of JSON: clear message, not retried', async () => {
    wire.srv.route('GET /v2/batches/7', (_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Sign in to the Wi-Fi</body></html>'));
    const e = await failure(() => client().getBatch(7));
    expect(e).toBeInstanceOf(ServiceError);
    expect(e).toMatchObject({ kind: 'bad-response', status: 200, operation: 'getBatch', retryable: false });
    expect(e.message).toMatch(/answered 200 but the body is not JSON \(text\/html\): "<html><body>Sign in/);
    expect(wire.srv.seen).toHaveLength(1);
  });

  it('an empty body where JSON is expected', async () => {
    wire.srv.route('POST /v2/batches', (_q, res) => res.writeHead(200).end());
    expect((await failure(() => client().createBatch({ name: 'x' }))).message).toMatch(/not JSON .*an empty body/);
  });

  it('JSON of the wrong shape names what is missing', async () => {
    wire.srv.route('POST /v2/batches', (_q, res) => json(res, 200, { batch: 3 }));
    const e = await failure(() => client().createBatch({ name: 'x' }));
    expect(e).toMatchObject({ kind: 'bad-response', operation: 'createBatch' });
    expect(e.message).toMatch(/unexpected shape: create batch response: "id" \(integer\) is missing/);
  });

  it('a job state outside the spec is a bad response, a lower-case one is read', async () => {
    wire.srv.route('GET /v2/jobs/a', (_q, res) => json(res, 200, { state: 'complete', message: 'ok' }));
    wire.srv.route('GET /v2/jobs/b', (_q, res) => json(res, 200, { state: 'EXPLODED' }));
    expect(await client().getJob('a')).toEqual({ state: 'COMPLETE', message: 'ok', extra: {} });
    expect((await failure(() => client().getJob('b'))).message).toMatch(/job state "EXPLODED" is not one of/);
  });

  it('a results page that says has_more but holds no files stops the iterator instead of looping', async () => {
    wire.srv.route('GET /v2/apps/runs/r1/results', (_q, res) => json(res, 200, { id: 'r1', status: 'COMPLETE', files: [], has_more: true }));
    const e = await failure(async () => {
      for await (const p of client().iterateResults('r1')) expect(p.page.files).toEqual([]);
    });
    expect(e).toMatchObject({ kind: 'bad-response', operation: 'iterateResults' });
  });
});

describe('the token never appears in errors or retry events', () => {
  it('a server that echoes the credential: redacted in the message, the retry reasons and every rendering of the error', async () => {
    wire.srv.route('GET /v2/batches/1', (req, res) => json(res, 500, { message: `rejected credential ${req.headers.authorization}` }));
    const e = await failure(() => client().getBatch(1));
    expect(e.message).toBe('rejected credential Bearer ***');
    expect(wire.retries.length).toBe(1);
    for (const text of [e.message, String(e), (e as unknown as ServiceError).describe(), e.stack ?? '', inspect(e, { depth: 10, showHidden: true }), JSON.stringify(e), JSON.stringify(wire.retries)]) {
      expect(text).not.toContain(TOKEN);
    }
  });

  it('a service message quoting the value (sandbox: a context equal to the token) is redacted too', async () => {
    const c = env.client('admin-token', { context: 'admin-token' });
    const e = await failure(() => c.listBatches());
    expect(e).toMatchObject({ status: 401 });
    expect(e.message).toMatch(/context "\*\*\*" is not valid/);
    expect(inspect(e, { showHidden: true })).not.toContain('admin-token');
  });

  it('the client object does not show its token', () => {
    const c = client();
    expect(inspect(c, { depth: 10, showHidden: true })).not.toContain(TOKEN);
    expect(JSON.stringify(c.config)).not.toContain(TOKEN);
  });
});

describe('timeouts, refusals and cancellation', () => {
  it('no answer within responseMs: kind timeout, retried, retryable', async () => {
    wire.srv.route('GET /v2/batches/1', () => undefined);
    const e = await failure(() => client({ timeouts: { responseMs: 100 } }).getBatch(1));
    expect(e).toMatchObject({ kind: 'timeout', code: 'ETIMEDOUT', retryable: true, attempts: 2, mayHaveTakenEffect: true });
  });

  it('a create that times out after sending is ambiguous (and the search for it times out too)', async () => {
    wire.srv.route('POST /v2/batches', () => undefined);
    wire.srv.route('GET /v2/batches', () => undefined);
    const e = await failure(() => client({ timeouts: { responseMs: 80 } }).createBatch({ name: 'x' }));
    expect(e).toMatchObject({ kind: 'ambiguous', operation: 'createBatch' });
    expect(e.message).toMatch(/answer timed out.*looking for batch named "x".*failed too/);
    expect(wire.srv.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
  });

  it('an AbortSignal ends a call in flight at once with kind aborted', async () => {
    wire.srv.route('GET /v2/batches/1', () => undefined);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 50);
    const t0 = Date.now();
    const e = await failure(() => client().getBatch(1, { signal: ctl.signal }));
    expect(e).toMatchObject({ kind: 'aborted', operation: 'getBatch' });
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('an already aborted signal makes no request', async () => {
    wire.srv.route('GET /v2/batches/1', (_q, res) => json(res, 200, { id: 1, name: 'b' }));
    const e = await failure(() => client().getBatch(1, { signal: AbortSignal.abort() }));
    expect(e).toMatchObject({ kind: 'aborted' });
    expect(wire.srv.seen).toHaveLength(0);
  });
});

describe('configuration', () => {
  it.each([
    [{ baseUrl: 'not a url', token: 't' }, /not a URL/],
    [{ baseUrl: 'ftp://x', token: 't' }, /http or https/],
    [{ baseUrl: 'http://x', token: ' ' }, /token is required/],
    [{ baseUrl: 'http://x', token: 't', concurrency: 0 }, /concurrency/],
    [{ baseUrl: 'http://x', token: 't', contextHeader: 'bad header' }, /not a valid header name/],
    [{ baseUrl: 'http://x', token: 't', secretsNamespace: 'a/b' }, /single path segment/],
    [{ baseUrl: 'http://x', token: 't', namespace: '..' }, /single path segment/],
    [{ baseUrl: 'http://x', token: 't', retry: { limit: -1 } }, /retry\.limit/],
  ] as [ClientConfig, RegExp][])('rejects %j', (cfg, msg) => {
    expect(() => new ServiceClient(cfg)).toThrow(msg);
  });

  it('fills the defaults named in the brief', () => {
    const c = new ServiceClient({ baseUrl: 'http://x/api/', token: 't' });
    expect(c.config).toMatchObject({ baseUrl: 'http://x/api', contextHeader: 'Svc-Context', namespace: 'svc', concurrency: 8 });
    c.close();
  });
});
