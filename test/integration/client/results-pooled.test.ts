/**
 * Results pages read into pooled buffers (raw-get.ts), over a scripted HTTP server (wire-server.ts):
 * the same retries, errors and headers as every other call (http.ts), compressed bodies, a body cut
 * short (a clear error, and nothing of it stored), and the pool's reuse of one buffer across pages.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BodyPool, getInto } from '../../../electron/engine/service/raw-get.js';
import { ServiceClient } from '../../../electron/engine/service/index.js';
import { openStore } from '../../../electron/engine/store/index.js';
import { failure } from './env.js';
import { json, wireClients } from './wire-server.js';

const wire = wireClients({ token: 'tok-123', retry: { limit: 3, baseDelayMs: 5, maxDelayMs: 20 } });
const { client } = wire;

/** A results page of `files` files, each with a field of `pad` characters (to make large bodies). */
const page = (offset: number, files: number, hasMore: boolean, pad = 10) => ({
  id: 'run_1', status: 'COMPLETE', batch_id: 1,
  files: Array.from({ length: files }, (_, i) => ({
    original_file_name: `f${offset + i}.pdf`, input_file_path: null,
    documents: [{ class_name: 'Invoice', page_numbers: [1], fields: [{ field_name: 'note', value: `${offset + i}:${'x'.repeat(pad)}`, type: 'TEXT' }] }],
  })),
  case_info: { fields: [] }, has_more: hasMore,
});
const RESULTS = 'GET /v2/apps/runs/run_1/results';
const offsetOf = (url: string | undefined): number => Number(new URL(url ?? '/', 'http://x').searchParams.get('file_offset'));

async function names(c: ServiceClient): Promise<string[]> {
  const out: string[] = [];
  for await (const p of c.iterateResults('run_1')) out.push(...p.page.files.map((f) => String(f.original_file_name)));
  return out;
}

describe('results pages read into pooled buffers', () => {
  it('sends the token, asks for compression, and reads every page of a run', async () => {
    wire.srv.route(RESULTS, (q, res) => {
      const at = offsetOf(q.url);
      json(res, 200, page(at, 2, at < 4));
    });
    expect(await names(client())).toEqual(['f0.pdf', 'f1.pdf', 'f2.pdf', 'f3.pdf', 'f4.pdf', 'f5.pdf']);
    expect(wire.srv.seen.map((s) => offsetOf(s.path))).toEqual([0, 2, 4]);
    expect(wire.srv.seen[0]?.headers.authorization).toBe('Bearer tok-123');
    expect(wire.srv.seen[0]?.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('gzip, deflate (wrapped and raw) and br bodies are decoded; a large one sent in small writes too', async () => {
    const encoders: [string, (b: Buffer) => Buffer][] = [['gzip', gzipSync], ['deflate', deflateSync], ['deflate', deflateRawSync], ['br', brotliCompressSync]];
    wire.srv.route(RESULTS, (q, res) => {
      const at = offsetOf(q.url);
      const [enc, f] = encoders[at] as [string, (b: Buffer) => Buffer];
      const body = f(Buffer.from(JSON.stringify(page(at, 1, at < 3, 300_000))));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': enc, 'content-length': String(body.length) });
      // In pieces, so the decoder sees many chunks.
      for (let i = 0; i < body.length; i += 700) res.write(body.subarray(i, i + 700));
      res.end();
    });
    const pages = [];
    for await (const p of client().iterateResults('run_1')) pages.push(p);
    expect(pages.map((p) => p.page.files[0]?.documents[0]?.fields[0]?.value)).toEqual([0, 1, 2, 3].map((i) => `${i}:${'x'.repeat(300_000)}`));
  });

  it('a chunked body larger than the first buffer, after a longer page: each page whole and nothing of the one before', async () => {
    wire.srv.route(RESULTS, (q, res) => {
      const at = offsetOf(q.url);
      // Page 0 long (1.2 MB, no length: chunked), page 1 short: read into the same buffer.
      const text = JSON.stringify(page(at, 1, at === 0, at === 0 ? 1_200_000 : 5));
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < text.length; i += 50_000) res.write(text.slice(i, i + 50_000));
      res.end();
    });
    const pages = [];
    for await (const p of client().iterateResults('run_1')) pages.push(p);
    expect(pages[0]?.rawText.length).toBeGreaterThan(1_200_000);
    expect(pages[1]?.rawText).toBe(JSON.stringify(page(1, 1, false, 5)));
  });

  it('a 429 with Retry-After is waited for as asked, then the page is read', async () => {
    wire.srv.route(RESULTS, (_q, res, n) => (n === 1 ? json(res, 429, { message: 'slow down' }, { 'Retry-After': '1' }) : json(res, 200, page(0, 1, false))));
    const t0 = Date.now();
    expect(await names(client())).toEqual(['f0.pdf']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(wire.retries).toEqual([expect.objectContaining({ operation: 'getResults', attempt: 1, delayMs: 1000, status: 429, retryAfter: '1' })]);
  });

  it('a 5xx and a reset connection are retried; a 401 is not, and the token echoed in its body is not repeated', async () => {
    wire.srv.route(RESULTS, (q, res, n) => {
      if (n === 1) return json(res, 503, { message: 'busy' });
      if (n === 2) return q.socket.destroy();
      json(res, 200, page(0, 1, false));
    });
    expect(await names(client())).toEqual(['f0.pdf']);
    expect(wire.retries.map((r) => r.status ?? r.reason.split(':')[0])).toEqual([503, 'network']);

    wire.srv.route(RESULTS, (q, res) => json(res, 401, { message: `bad token ${String(q.headers.authorization)}` }));
    const e = await failure(() => client().getResults('run_1'));
    expect(e).toMatchObject({ kind: 'http', status: 401, attempts: 1 });
    expect(e.message).not.toContain('tok-123');
  });

  it('a body cut short on every attempt: a clear network error after the retries, and nothing of that page stored', async () => {
    wire.srv.route(RESULTS, (q, res) => {
      const at = offsetOf(q.url);
      if (at === 0) return json(res, 200, page(0, 2, true));
      const text = JSON.stringify(page(at, 2, false));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      res.write(text.slice(0, 100), () => q.socket.destroy());
    });
    const dir = await mkdtemp(join(tmpdir(), 'docsync-pooled-'));
    const store = openStore(join(dir, 'store.db'));
    try {
      const run = store.runs.addRun({ serviceRunId: 'run_1' }).id;
      // As the follower stores a run (pipeline/follower.ts): page by page, each once received whole.
      const e = await failure(async () => {
        for await (const p of client().iterateResults('run_1')) store.results.storeResultsPage(run, p.raw, p.page, p.fileOffset, p.rawText);
      });
      expect(e).toMatchObject({ kind: 'network', code: 'ECONNRESET', attempts: 4, operation: 'getResults' });
      expect(e.message).toMatch(/closed before the whole body arrived/);
      expect(wire.retries).toHaveLength(3);
      const stored = store.db.prepare('SELECT file_offset AS o FROM result_pages WHERE run_id = ?').all(run) as { o: number }[];
      expect(stored.map((r) => r.o)).toEqual([0]);
    } finally {
      store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a body cut short once is read whole on the next attempt', async () => {
    const text = JSON.stringify(page(0, 3, false, 100_000));
    wire.srv.route(RESULTS, (q, res, n) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      if (n === 1) return res.write(text.slice(0, 150_000), () => q.socket.destroy());
      res.end(text);
    });
    const p = await client().getResults('run_1');
    expect(p.rawText).toBe(text);
    expect(wire.retries).toEqual([expect.objectContaining({ reason: expect.stringMatching(/^network: the connection closed before the whole body arrived \(\d+ of \d+ bytes\)/) })]);
  });

  it('a gzip body that is not gzip is a clear error, not a page', async () => {
    wire.srv.route(RESULTS, (_q, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end('{"not":"gzip"}'));
    const e = await failure(() => client().getResults('run_1'));
    expect(e.message).toMatch(/could not be decompressed \(gzip\)/);
  });

  it('an answer that goes quiet mid-body times out (socket idle) and is retried', async () => {
    const text = JSON.stringify(page(0, 1, false));
    wire.srv.route(RESULTS, (_q, res, n) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(text.length) });
      if (n === 1) return void res.write(text.slice(0, 10)); // and nothing more
      res.end(text);
    });
    const p = await client({ timeouts: { idleMs: 200, responseMs: 2000, connectMs: 2000 } }).getResults('run_1');
    expect(p.rawText).toBe(text);
    expect(wire.retries).toEqual([expect.objectContaining({ reason: 'timeout: timed out (socket idle)', code: 'ETIMEDOUT' })]);
  });

  it('a cancelled read stops at once with an aborted error', async () => {
    wire.srv.route(RESULTS, (_q, res) => void res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' }).write('{"id"'));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const e = await failure(() => client().getResults('run_1', {}, { signal: ac.signal }));
    expect(e).toMatchObject({ kind: 'aborted' });
  });
});

describe('the body pool', () => {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const get = (pool: BodyPool) => getInto({ url: `${wire.srv.url}/p`, headers: {}, agents, pool, idleMs: 5000, responseMs: 5000 });

  it('30 pages of 1 MB allocate one buffer, reused (got allocated about three times each page)', async () => {
    const body = Buffer.alloc(1024 * 1024, 'a');
    wire.srv.route('GET /p', (_q, res) => res.writeHead(200, { 'content-length': String(body.length) }).end(body));
    const pool = new BodyPool();
    for (let i = 0; i < 30; i++) {
      const r = await get(pool);
      expect(r.body.equals(body)).toBe(true);
      r.release();
    }
    expect(pool.allocatedBytes).toBe(body.length * 1.25);
  });

  it('bodies held at once get buffers of their own; the pool keeps at most `keep`, none over its size cap', async () => {
    const KB64 = 65_536;
    wire.srv.route('GET /p', (_q, res) => res.writeHead(200, { 'content-length': String(5 * KB64) }).end(Buffer.alloc(5 * KB64, 'b')));
    const pool = new BodyPool(1, 1024 * 1024);
    const [a, b] = await Promise.all([get(pool), get(pool)]);
    expect(a.body.buffer).not.toBe(b.body.buffer);
    a.release();
    b.release();
    const c = await get(pool);
    c.release();
    expect(pool.allocatedBytes).toBe(2 * 7 * KB64); // 5 * 1.25, rounded up to 64 KB: 7
    // A larger page: a larger buffer, over the cap: not kept.
    wire.srv.route('GET /p', (_q, res) => res.writeHead(200, { 'content-length': String(16 * KB64) }).end(Buffer.alloc(16 * KB64)));
    (await get(pool)).release();
    (await get(pool)).release();
    expect(pool.allocatedBytes).toBe(2 * 7 * KB64 + 2 * 20 * KB64);
  });

  it('a body without a length grows its buffer as it comes; the grown one is what is kept', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, 'c');
    wire.srv.route('GET /p', (_q, res) => {
      res.writeHead(200);
      for (let i = 0; i < body.length; i += 100_000) res.write(body.subarray(i, i + 100_000));
      res.end();
    });
    const pool = new BodyPool();
    const r = await get(pool);
    expect(r.body.equals(body)).toBe(true);
    r.release();
    const grown = pool.allocatedBytes;
    (await get(pool)).release();
    expect(pool.allocatedBytes).toBe(grown);
  });
});
