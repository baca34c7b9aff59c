/**
 * What the client puts on the wire and how it retries, observed with a scripted HTTP server
 * (wire-server.ts): headers, keep-alive reuse, the bound on calls in flight, Retry-After in both
 * forms timed exactly, and the rule for calls that are not idempotent (http.ts).
 */
import { describe, expect, it } from 'vitest';
import { failure } from './env.js';
import { json, wireClients, wireServer } from './wire-server.js';

const wire = wireClients({ token: 'tok-123', retry: { limit: 3, baseDelayMs: 5, maxDelayMs: 20 } });
const { client } = wire;

const batch = (id: number, extra = {}) => ({ id, name: `b${id}`, ...extra });
const destroy = (req: { socket: { destroy(): void } }): void => req.socket.destroy();

describe('headers (spec 5)', () => {
  it('sends the bearer token, and the context under the configured header name on v2 only (audit lists Authorization only)', async () => {
    wire.srv.route('GET *', (_q, res) => json(res, 200, batch(1)));
    wire.srv.route('POST /v1/auditlogs', (_q, res) => json(res, 200, { status: 'OK', data: { results: [] } }));
    const c = client({ context: 'org-1', contextHeader: 'X-Tenant' });
    await c.getBatch(1);
    await c.auditLogs();
    const [v2, v1] = wire.srv.seen;
    expect(v2?.headers.authorization).toBe('Bearer tok-123');
    expect(v2?.headers['x-tenant']).toBe('org-1');
    expect(v2?.headers['svc-context']).toBeUndefined();
    expect(v1?.headers.authorization).toBe('Bearer tok-123');
    expect(v1?.headers['x-tenant']).toBeUndefined();
  });

  it('without a context no context header is sent', async () => {
    wire.srv.route('GET *', (_q, res) => json(res, 200, batch(1)));
    await client().getBatch(1);
    expect(wire.srv.seen[0]?.headers['svc-context']).toBeUndefined();
  });
});

describe('connections', () => {
  it('keep-alive: sequential calls reuse one connection', async () => {
    wire.srv.route('GET *', (_q, res) => json(res, 200, batch(1)));
    const c = client();
    for (let i = 0; i < 10; i++) await c.getBatch(1);
    expect(wire.srv.seen).toHaveLength(10);
    expect(wire.srv.connections).toBe(1);
  });

  it('at most `concurrency` calls in flight and sockets open, however many are made at once', async () => {
    wire.srv.route('GET *', (_q, res) => setTimeout(() => json(res, 200, batch(1)), 30));
    const c = client({ concurrency: 3 });
    await Promise.all(Array.from({ length: 20 }, () => c.getBatch(1)));
    expect(wire.srv.maxConcurrent).toBe(3);
    expect(wire.srv.connections).toBeLessThanOrEqual(3);
  });
});

describe('retries', () => {
  it('Retry-After in seconds and as an HTTP-date are both waited for', async () => {
    const t0 = Date.now();
    wire.srv.route('GET /v2/batches/1', (_q, res, n) => {
      if (n === 1) return json(res, 429, { message: 'slow down' }, { 'Retry-After': '1' });
      if (n === 2) return json(res, 503, { message: 'busy' }, { 'Retry-After': new Date(Date.now() + 1500).toUTCString() });
      json(res, 200, batch(1));
    });
    expect((await client().getBatch(1)).id).toBe(1);
    expect(wire.retries.map((r) => [r.status, r.retryAfter !== undefined])).toEqual([[429, true], [503, true]]);
    expect(wire.retries[0]?.delayMs).toBe(1000);
    // The date has one-second resolution: between 0.5 s and 1.5 s remain when it is read.
    expect(wire.retries[1]?.delayMs).toBeGreaterThan(400);
    expect(wire.retries[1]?.delayMs).toBeLessThanOrEqual(1500);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000 + (wire.retries[1]?.delayMs ?? 0) - 50);
  });

  it('a Retry-After beyond maxRetryAfterMs ends the call at once as a retryable 429', async () => {
    wire.srv.route('GET /v2/batches/1', (_q, res) => json(res, 429, { message: 'come back in an hour' }, { 'Retry-After': '3600' }));
    const t0 = Date.now();
    const e = await failure(() => client({ retry: { maxRetryAfterMs: 10_000 } }).getBatch(1));
    expect(e).toMatchObject({ kind: 'http', status: 429, retryable: true, attempts: 1, message: 'come back in an hour' });
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('5xx without Retry-After: exponential backoff with full jitter, within the policy bounds', async () => {
    wire.srv.route('GET /v2/batches/1', (_q, res, n) => (n <= 3 ? json(res, 500, { message: 'oops' }) : json(res, 200, batch(1))));
    await client({ retry: { limit: 5, baseDelayMs: 10, maxDelayMs: 25 } }).getBatch(1);
    expect(wire.retries.map((r) => r.attempt)).toEqual([1, 2, 3]);
    wire.retries.forEach((r, i) => {
      expect(r.delayMs).toBeGreaterThanOrEqual(0);
      expect(r.delayMs).toBeLessThanOrEqual(Math.min(25, 10 * 2 ** i));
    });
    expect(wire.retries[0]?.request).toBe('GET /v2/batches/1');
  });

  it('gives up after the limit with the last error, marked retryable, with the attempt count', async () => {
    wire.srv.route('GET /v2/batches/1', (_q, res) => json(res, 503, { message: 'down' }));
    const e = await failure(() => client().getBatch(1));
    expect(e).toMatchObject({ kind: 'http', status: 503, retryable: true, attempts: 4, message: 'down' });
  });

  it('an idempotent GET cut off by a reset is repeated', async () => {
    wire.srv.route('GET /v2/batches/1', (req, res, n) => (n === 1 ? destroy(req) : json(res, 200, batch(1))));
    expect((await client().getBatch(1)).id).toBe(1);
    expect(wire.retries[0]).toMatchObject({ operation: 'getBatch', code: 'ECONNRESET' });
  });
});

describe('calls that are not idempotent (http.ts)', () => {
  it('create batch answered 503 did not take effect: it is repeated', async () => {
    wire.srv.route('POST /v2/batches', (_q, res, n) => (n === 1 ? json(res, 503, { message: 'busy' }) : json(res, 200, { id: 42 })));
    expect(await client().createBatch({ name: 'x' })).toEqual({ id: 42, recovered: false });
    expect(wire.srv.seen.filter((s) => s.method === 'POST')).toHaveLength(2);
  });

  it('reset after the request was sent: never repeated; the one batch it made is found by listing and adopted', async () => {
    wire.srv.route('POST /v2/batches', (req) => destroy(req));
    wire.srv.route('GET /v2/batches', (_q, res) =>
      json(res, 200, { batches: [batch(7, { name: 'other', created_at_ms: Date.now() }), batch(8, { name: 'mine', batch_owner: 'ann', created_at_ms: Date.now() }), batch(3, { name: 'mine', created_at_ms: Date.now() - 3_600_000 })] }),
    );
    expect(await client({ username: 'ann' }).createBatch({ name: 'mine', workspace: 'team' })).toEqual({ id: 8, recovered: true });
    expect(wire.srv.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
    const list = wire.srv.seen.find((s) => s.method === 'GET');
    expect(list?.path).toMatch(/workspace=team/);
    expect(list?.path).toMatch(/username=ann/);
  });

  it('reset, and no batch found: kind ambiguous, never repeated', async () => {
    wire.srv.route('POST /v2/batches', (req) => destroy(req));
    wire.srv.route('GET /v2/batches', (_q, res) => json(res, 200, { batches: [] }));
    const e = await failure(() => client().createBatch({ name: 'lost' }));
    expect(e).toMatchObject({ kind: 'ambiguous', operation: 'createBatch', mayHaveTakenEffect: true, retryable: false });
    expect(e.message).toMatch(/may or may not have taken effect.*no batch named "lost"/);
    expect(wire.srv.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
  });

  it('reset, and two candidates: kind ambiguous naming both', async () => {
    wire.srv.route('POST /v2/batches', (req) => destroy(req));
    wire.srv.route('GET /v2/batches', (_q, res) => json(res, 200, { batches: [batch(1, { name: 'twin', created_at_ms: Date.now() }), batch(2, { name: 'twin', created_at_ms: Date.now() })] }));
    const e = await failure(() => client().createBatch({ name: 'twin' }));
    expect(e).toMatchObject({ kind: 'ambiguous' });
    expect(e.message).toMatch(/ids 1, 2/);
  });

  it('reset, and the search fails too: kind ambiguous that says so', async () => {
    wire.srv.route('POST /v2/batches', (req) => destroy(req));
    wire.srv.route('GET /v2/batches', (_q, res) => json(res, 500, { message: 'listing broken' }));
    const e = await failure(() => client().createBatch({ name: 'x' }));
    expect(e).toMatchObject({ kind: 'ambiguous' });
    expect(e.message).toMatch(/failed too.*listing broken/);
  });

  it('start run: reset after sending; the run is found by deployment, user, time and input, and adopted', async () => {
    const now = Date.now() * 1e6;
    wire.srv.route('POST /v2/apps/deployments/dep-1/runs', (req) => destroy(req));
    wire.srv.route('GET /v2/apps/runs', (_q, res) =>
      json(res, 200, { runs: [{ id: 'r-other', status: 'RUNNING', batch_id: 9, start_timestamp: now }, { id: 'r-mine', status: 'RUNNING', batch_id: 5, start_timestamp: now, deployment_id: 'dep-1' }] }),
    );
    const run = await client({ username: 'ann' }).startDeploymentRun('dep-1', { batch_id: 5 });
    expect(run).toMatchObject({ id: 'r-mine', recovered: true });
    const list = wire.srv.seen.find((s) => s.method === 'GET')?.path ?? '';
    expect(list).toMatch(/deployment_id=dep-1/);
    expect(list).toMatch(/username=ann/);
    expect(list).toMatch(/from_timestamp=\d{10}/);
    expect(wire.srv.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
  });

  it('connection refused certainly did not take effect: a create is repeated, then fails as network', async () => {
    const dead = wire.srv.url;
    await wire.srv.close();
    wire.srv = await wireServer();
    const c = client({ baseUrl: dead, token: 't', retry: { limit: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    const e = await failure(() => c.createBatch({ name: 'x' }));
    expect(e).toMatchObject({ kind: 'network', code: 'ECONNREFUSED', retryable: true, attempts: 3, mayHaveTakenEffect: false });
    expect(wire.retries).toHaveLength(2);
  });
});

describe('deletion jobs (issue 11)', () => {
  it('a batch-file deletion names its job by Location; where a service answers with a body job_id instead, that is read', async () => {
    wire.srv.route('DELETE /v2/batches/1/files/a.pdf', (_q, res) => res.writeHead(202, { Location: '/v2/jobs/job_loc' }).end());
    wire.srv.route('DELETE /v2/batches/1/files/b.pdf', (_q, res) => json(res, 202, { job_id: 'job_body' }));
    wire.srv.route('DELETE /v2/batches/1/files/c.pdf', (_q, res) => res.writeHead(202).end());
    const c = client();
    expect(await c.deleteBatchFile(1, 'a.pdf')).toEqual({ jobId: 'job_loc' });
    expect(await c.deleteBatchFile(1, 'b.pdf')).toEqual({ jobId: 'job_body' });
    expect(await c.deleteBatchFile(1, 'c.pdf')).toEqual({ jobId: null });
  });
});

describe('a conditional write cut off, then refused (412)', () => {
  // The scripted server holds one file; the first PUT is cut off after its body arrived, as a
  // reset after the service acted (or before it did) looks to the client.
  const hold = (stored: () => Buffer | null): void => {
    wire.srv.route('HEAD /v2/files/svc-drive/claims/c/1.json', (_q, res) => {
      const b = stored();
      if (!b) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': b.length }).end();
    });
    wire.srv.route('GET /v2/files/svc-drive/claims/c/1.json', (req, res) => {
      const b = stored() as Buffer;
      const m = /bytes=(\d+)-(\d+)/.exec(String(req.headers.range));
      const part = m ? b.subarray(Number(m[1]), Number(m[2]) + 1) : b;
      res.writeHead(m ? 206 : 200, { 'content-type': 'application/octet-stream', ...(m ? { 'content-range': `bytes ${m[1]}-${m[2]}/${b.length}` } : {}) }).end(part);
    });
  };

  it("is this call's own create when the bytes there are ours", async () => {
    let stored: Buffer | null = null;
    hold(() => stored);
    wire.srv.route('PUT /v2/files/svc-drive/claims/c/1.json', (req, res, n, body) => {
      if (n === 1) {
        stored = Buffer.from(body);
        return destroy(req);
      }
      json(res, 412, { message: 'a file already exists' });
    });
    const w = await client().writeFile('svc-drive/claims/c/1.json', Buffer.from('{"agent":"a1"}'), { ifNoneMatch: true });
    expect(w).toMatchObject({ created: true, status: 201 });
  });

  it("is another writer's file when only the size matches (two agents' claims of one size)", async () => {
    const theirs = Buffer.from('{"agent":"b2"}');
    hold(() => theirs);
    wire.srv.route('PUT /v2/files/svc-drive/claims/c/1.json', (req, res, n) => (n === 1 ? destroy(req) : json(res, 412, { message: 'a file already exists' })));
    const e = await failure(() => client().writeFile('svc-drive/claims/c/1.json', Buffer.from('{"agent":"a1"}'), { ifNoneMatch: true }));
    expect(e).toMatchObject({ kind: 'http', status: 412, operation: 'writeFile' });
  });
});
