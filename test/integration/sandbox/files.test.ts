/**
 * /v2/files/{path} (spec 4.8, service-shapes.md "Files"): create/overwrite, conditional create,
 * reads with ranges and retry-config, metadata through HEAD, asynchronous delete, path safety,
 * drive kinds and workspace membership, and a large file streamed both ways.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, sandbox, waitFor } from '../../helpers/sandbox.js';

let sb: RunningSandbox;
let admin: ReturnType<typeof caller>;
let member: ReturnType<typeof caller>;
const F = (p: string): string => `/v2/files/svc-drive/files-test/${p}`;
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
  member = caller(sb.url, 'member-token');
});

afterAll(async () => {
  await sb?.close();
  if (sb) await rm(sb.dataDir, { recursive: true, force: true });
});

/** A request whose path goes on the wire exactly as written (fetch would normalise `..` and `%2E%2E`). */
function raw(method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: sb.port, method, path, headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/octet-stream' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function jobDone(location: string): Promise<{ state: string; message: string }> {
  return waitFor(async () => {
    const j = await admin<{ state: string; message: string }>('GET', location);
    expect(j.status).toBe(200);
    return ['COMPLETE', 'FAILED', 'CANCELLED'].includes(j.body.state) ? j.body : null;
  }, `job ${location}`);
}

describe('PUT (spec 4.8: create or overwrite)', () => {
  it('creates a file and its missing parent folders: 204', async () => {
    const put = await admin('PUT', F('deep/er/new.txt'), 'hello');
    expect(put.status).toBe(204);
    expect(put.text).toBe('');
    expect((await admin('HEAD', F('deep/er'))).headers.get('content-type')).toContain('application/json');
    expect((await admin('GET', `${F('deep/er/new.txt')}?expect-node-type=file`)).text).toBe('hello');
  });

  it('overwrites an existing file without If-None-Match: 204 and new content', async () => {
    await admin('PUT', F('over.txt'), 'first');
    expect((await admin('PUT', F('over.txt'), 'second')).status).toBe(204);
    expect((await admin('GET', `${F('over.txt')}?expect-node-type=file`)).text).toBe('second');
  });

  it('with "If-None-Match: *" on a new path creates it: 201 with Location of the file', async () => {
    const put = await admin('PUT', F('cond/new file.txt'), 'conditional', { 'If-None-Match': '*' });
    expect(put.status).toBe(201);
    const loc = put.headers.get('location');
    expect(loc).toBe('/v2/files/svc-drive/files-test/cond/new%20file.txt');
    expect((await admin('GET', `${loc}?expect-node-type=file`)).text).toBe('conditional');
  });

  it('with "If-None-Match: *" on an existing file: 412 and the content is unchanged', async () => {
    await admin('PUT', F('cond/exists.txt'), 'original');
    const put = await admin('PUT', F('cond/exists.txt'), 'replacement', { 'If-None-Match': '*' });
    expect(put.status).toBe(412);
    expect(put.body).toEqual({ message: expect.any(String) });
    expect((await admin('GET', `${F('cond/exists.txt')}?expect-node-type=file`)).text).toBe('original');
  });

  it('If-None-Match with another value: 412 on an existing file, but a new file is a plain 204 (201 needs "*")', async () => {
    await admin('PUT', F('cond/etag.txt'), 'original');
    expect((await admin('PUT', F('cond/etag.txt'), 'x', { 'If-None-Match': '"abc"' })).status).toBe(412);
    const put = await admin('PUT', F('cond/etag-new.txt'), 'fresh', { 'If-None-Match': '"abc"' });
    expect(put.status).toBe(204);
    expect(put.headers.get('location')).toBeNull();
    expect((await admin('GET', `${F('cond/etag-new.txt')}?expect-node-type=file`)).text).toBe('fresh');
  });

  it('an empty body is refused: 400, and nothing is created', async () => {
    const put = await admin('PUT', F('empty.txt'), new Uint8Array(0));
    expect(put.status).toBe(400);
    expect(put.body).toEqual({ message: expect.any(String) });
    expect((await admin('HEAD', F('empty.txt'))).status).toBe(404);
  });
});

describe('GET (spec 4.8: read file, expect-node-type, Range)', () => {
  const content = '0123456789abcdefghij'; // 20 bytes
  beforeAll(async () => {
    expect((await admin('PUT', F('read/r.txt'), content)).status).toBe(204);
    expect((await admin('PUT', F('read/sub/s.txt'), 'x')).status).toBe(204);
  });

  it('requires the expect-node-type query: 400 without it', async () => {
    expect((await admin('GET', F('read/r.txt'))).status).toBe(400);
  });

  it('reads a whole file: 200 application/octet-stream with Content-Length and the bytes', async () => {
    const a = await admin('GET', `${F('read/r.txt')}?expect-node-type=file`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('application/octet-stream');
    expect(a.headers.get('content-length')).toBe('20');
    expect(a.text).toBe(content);
  });

  it.each([
    ['bytes=2-5', 2, 5],
    ['bytes=15-', 15, 19],
    ['bytes=-4', 16, 19],
    ['bytes=10-999', 10, 19],
  ])('Range %s: 206 with Content-Range and exactly those bytes (inclusive bounds)', async (range, start, end) => {
    const a = await admin('GET', `${F('read/r.txt')}?expect-node-type=file`, undefined, { Range: range });
    expect(a.status).toBe(206);
    expect(a.headers.get('content-range')).toBe(`bytes ${start}-${end}/20`);
    expect(a.headers.get('content-length')).toBe(String(end - start + 1));
    expect(a.text).toBe(content.slice(start, end + 1));
  });

  it('a Range starting at or beyond the size: 416 with "Content-Range: bytes */size"', async () => {
    for (const range of ['bytes=20-', 'bytes=25-30']) {
      const a = await admin('GET', `${F('read/r.txt')}?expect-node-type=file`, undefined, { Range: range });
      expect(a.status, range).toBe(416);
      expect(a.headers.get('content-range')).toBe('bytes */20');
    }
  });

  it('a folder with expect-node-type=folder: a JSON listing of its children', async () => {
    const a = await admin<{ nodes: { name: string; full_path: string; metadata: { node_type: string; size: number } }[] }>('GET', `${F('read')}?expect-node-type=folder`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toContain('application/json');
    const byName = Object.fromEntries(a.body.nodes.map((n) => [n.name, n]));
    expect(Object.keys(byName).sort()).toEqual(['r.txt', 'sub']);
    expect(byName['r.txt']).toMatchObject({ full_path: 'svc-drive/files-test/read/r.txt', metadata: { size: 20 } });
  });

  it('the wrong node type is a 400 both ways', async () => {
    expect((await admin('GET', `${F('read')}?expect-node-type=file`)).status).toBe(400);
    expect((await admin('GET', `${F('read/r.txt')}?expect-node-type=folder`)).status).toBe(400);
    expect((await admin('GET', `${F('read/r.txt')}?expect-node-type=symlink`)).status).toBe(400);
  });

  it('a file read while PUTs replace it with longer and shorter versions: each read is one whole version, and the connection stays usable', async () => {
    // A heartbeat file is rewritten while other agents read it. The length sent and the bytes sent
    // must come from one version: otherwise a short body leaves the reader waiting for bytes that
    // never come, and a long one spills into the next answer on the same keep-alive connection.
    const versions = ['short', 'a much longer version '.repeat(40)];
    expect((await admin('PUT', F('race/beat.json'), versions[0])).status).toBe(204);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const get = (): Promise<string> => new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: sb.port, agent, path: `${F('race/beat.json')}?expect-node-type=file`, headers: { Authorization: 'Bearer admin-token' }, timeout: 3000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`status ${res.statusCode}`))));
        res.on('aborted', () => reject(new Error('answer cut short')));
      });
      req.on('timeout', () => req.destroy(new Error('no whole answer within 3 s')));
      req.on('error', reject);
      req.end();
    });
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 300; i++) expect((await admin('PUT', F('race/beat.json'), versions[i % 2])).status).toBe(204);
      writing = false;
    })();
    const reads: string[] = [];
    const reader = async (): Promise<void> => {
      while (writing) reads.push(await get());
    };
    try {
      await Promise.all([writer, reader(), reader(), reader(), reader()]);
    } finally {
      agent.destroy();
    }
    expect(reads.length).toBeGreaterThan(50);
    expect(reads.filter((r) => !versions.includes(r))).toEqual([]);
  });

  it('a missing path: 404 {message}', async () => {
    const a = await admin('GET', `${F('read/missing.txt')}?expect-node-type=file`);
    expect(a.status).toBe(404);
    expect(a.body).toEqual({ message: expect.any(String) });
  });
});

describe('Svc-Retry-Config (spec 4.8: retry while nothing is found, constant backoff)', () => {
  const retry = { 'Svc-Retry-Config': JSON.stringify({ retries: 3, 'backoff-seconds': 0.2 }) };

  it('GET of a path created 0.3 s later by another PUT: 200 with its bytes', async () => {
    const t0 = Date.now();
    const later = new Promise((r) => setTimeout(r, 300)).then(() => admin('PUT', F('retry/late.txt'), 'arrived'));
    const a = await admin('GET', `${F('retry/late.txt')}?expect-node-type=file`, undefined, retry);
    expect((await later).status).toBe(204);
    expect(a.status).toBe(200);
    expect(a.text).toBe('arrived');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
  });

  it('without the header a missing path is a 404 at once (no retry)', async () => {
    const t0 = Date.now();
    expect((await admin('GET', `${F('retry/never.txt')}?expect-node-type=file`)).status).toBe(404);
    expect(Date.now() - t0).toBeLessThan(150);
  });

  it('retries run out: 404 after retries x backoff', async () => {
    const t0 = Date.now();
    const a = await admin('GET', `${F('retry/never.txt')}?expect-node-type=file`, undefined, { 'Svc-Retry-Config': '{"retries": 2, "backoff-seconds": 0.1}' });
    expect(a.status).toBe(404);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
  });

  it('a header that is not the retry JSON: 400', async () => {
    for (const bad of ['three times', '{"retries": "3", "backoff-seconds": 1}', '{"retries": 3}', '{"retries": -1, "backoff-seconds": 1}']) {
      const a = await admin('GET', `${F('retry/never.txt')}?expect-node-type=file`, undefined, { 'Svc-Retry-Config': bad });
      expect(a.status, bad).toBe(400);
    }
  });

  it('HEAD retries too: a path created 0.3 s later answers 200', async () => {
    const later = new Promise((r) => setTimeout(r, 300)).then(() => admin('PUT', F('retry/late-head.txt'), 'abc'));
    const a = await admin('HEAD', F('retry/late-head.txt'), undefined, retry);
    await later;
    expect(a.status).toBe(200);
    expect(a.headers.get('content-length')).toBe('3');
  });
});

describe('HEAD (spec 4.8: metadata; service-shapes: metadata travels in headers)', () => {
  it('a file: 200 application/octet-stream with Content-Length and Last-Modified', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    await admin('PUT', F('head/h.bin'), new Uint8Array(1234).fill(7));
    const a = await admin('HEAD', F('head/h.bin'));
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('application/octet-stream');
    expect(a.headers.get('content-length')).toBe('1234');
    const lm = Date.parse(a.headers.get('last-modified') ?? '');
    expect(lm).toBeGreaterThanOrEqual(before);
    expect(lm).toBeLessThanOrEqual(Date.now());
    expect(a.text).toBe('');
  });

  it('a folder: 200 application/json', async () => {
    const a = await admin('HEAD', F('head'));
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toContain('application/json');
  });

  it('nothing at the path: 404', async () => {
    expect((await admin('HEAD', F('head/none'))).status).toBe(404);
  });
});

describe('DELETE (spec 4.8, 3.4: 202 whether or not the target exists)', () => {
  it('a file: 202 with the job in Location and no body (as the service), the job COMPLETEs and the file is gone', async () => {
    await admin('PUT', F('del/a.txt'), 'bye');
    const d = await admin('DELETE', F('del/a.txt'));
    expect(d.status).toBe(202);
    expect(d.text).toBe('');
    expect(d.headers.get('content-length')).toBe('0');
    const loc = d.headers.get('location') ?? '';
    expect(loc).toMatch(/^\/v2\/jobs\/[^/]+$/);
    expect((await jobDone(loc)).state).toBe('COMPLETE');
    expect((await admin('HEAD', F('del/a.txt'))).status).toBe(404);
  });

  it('a missing target: still 202 with a job that COMPLETEs', async () => {
    const d = await admin('DELETE', F('del/never-was.txt'));
    expect(d.status).toBe(202);
    expect((await jobDone(d.headers.get('location') ?? '')).state).toBe('COMPLETE');
  });

  it('a folder: everything under it is removed', async () => {
    await admin('PUT', F('del/dir/one.txt'), '1');
    await admin('PUT', F('del/dir/two/three.txt'), '3');
    const d = await admin('DELETE', F('del/dir'));
    expect(d.status).toBe(202);
    expect((await jobDone(d.headers.get('location') ?? '')).state).toBe('COMPLETE');
    expect((await admin('HEAD', F('del/dir'))).status).toBe(404);
  });
});

describe('paths that try to leave the filesystem root (issue 2: 400)', () => {
  it.each([
    ['GET', '/v2/files/svc-drive/../sandbox.db?expect-node-type=file'],
    ['GET', '/v2/files/svc-drive/%2E%2E/svc-drive/x?expect-node-type=file'],
    ['GET', '/v2/files/svc-drive\\..\\x?expect-node-type=file'],
    ['GET', '/v2/files/svc-drive/a%2F..%2F..%2Fsandbox.db?expect-node-type=file'],
    ['HEAD', '/v2/files/svc-drive/%2e%2e/sandbox.db'],
    ['PUT', '/v2/files/svc-drive/../escape.txt'],
    ['PUT', '/v2/files/svc-drive/x/%2E%2E/%2E%2E/escape.txt'],
    ['DELETE', '/v2/files/svc-drive/%2E%2E/object-drive'],
  ])('%s %s: 400', async (method, path) => {
    const a = await raw(method, path, method === 'PUT' ? 'escaped' : undefined);
    expect(a.status).toBe(400);
    if (method !== 'HEAD') expect(JSON.parse(a.text)).toEqual({ message: expect.any(String) });
  });

  it('a path whose ".." segments climb above /v2/files itself is a 400 too, not a 404 or another endpoint', async () => {
    expect((await raw('GET', '/v2/files/svc-drive/%2E%2E/%2E%2E/sandbox.db?expect-node-type=file')).status).toBe(400);
    expect((await raw('GET', '/v2/files/%2E%2E/batches')).status).toBe(400);
  });

  it('nothing was written outside the drive and nothing was deleted', async () => {
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(sb.dataDir, 'drives', 'escape.txt'))).toBe(false);
    expect(existsSync(join(sb.dataDir, 'escape.txt'))).toBe(false);
    expect(readdirSync(join(sb.dataDir, 'drives')).sort()).toEqual(expect.arrayContaining(['docs-drive', 'object-drive', 'svc-drive']));
  });
});

describe('drive kinds and workspace membership', () => {
  it('the cloud document drive does not support PUT or DELETE: 400', async () => {
    expect((await admin('PUT', '/v2/files/docs-drive/a.txt', 'x')).status).toBe(400);
    expect((await admin('DELETE', '/v2/files/docs-drive/a.txt')).status).toBe(400);
  });

  it('cloud object storage supports PUT and DELETE', async () => {
    expect((await admin('PUT', '/v2/files/object-drive/o/a.txt', 'x')).status).toBe(204);
    expect((await admin('GET', '/v2/files/object-drive/o/a.txt?expect-node-type=file')).text).toBe('x');
    expect((await admin('DELETE', '/v2/files/object-drive/o/a.txt')).status).toBe(202);
  });

  it('another user\'s personal workspace: 403 for a member, for every method', async () => {
    const p = '/v2/files/svc-drive/workspaces/personal-admin/x';
    expect((await admin('PUT', p, 'mine')).status).toBe(204);
    expect((await member('PUT', p, 'theirs')).status).toBe(403);
    expect((await member('GET', `${p}?expect-node-type=file`)).status).toBe(403);
    expect((await member('HEAD', p)).status).toBe(403);
    expect((await member('DELETE', p)).status).toBe(403);
    expect((await admin('GET', `${p}?expect-node-type=file`)).text).toBe('mine');
  });

  it('a workspace the member belongs to is open to the member', async () => {
    const p = '/v2/files/svc-drive/workspaces/team/member-file.txt';
    expect((await member('PUT', p, 'team data')).status).toBe(204);
    expect((await member('GET', `${p}?expect-node-type=file`)).text).toBe('team data');
  });
});

describe('a large file streams up and back byte-equal (issue 2: bytes stream to disk)', () => {
  it('30 MB PUT then GET: same sha256 and size', async () => {
    const total = 30 * 1024 * 1024;
    const chunk = 1024 * 1024;
    const up = createHash('sha256');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: sb.port, method: 'PUT', path: F('big/30mb.bin'), headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/octet-stream', 'Content-Length': total } },
        (res) => (res.resume(), res.on('end', () => resolve(res.statusCode ?? 0))),
      );
      req.on('error', reject);
      let sent = 0;
      const pump = (): void => {
        while (sent < total) {
          const b = randomBytes(chunk);
          up.update(b);
          sent += b.length;
          if (!req.write(b)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(204);
    const res = await fetch(`${sb.url}${F('big/30mb.bin')}?expect-node-type=file`, { headers: { Authorization: 'Bearer admin-token' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(total));
    const down = createHash('sha256');
    let got = 0;
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
      down.update(part);
      got += part.length;
    }
    expect(got).toBe(total);
    expect(down.digest('hex')).toBe(up.digest('hex'));
  });
});
