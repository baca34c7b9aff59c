import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxCore } from '../core.js';
import { badRequest, notFound } from '../http/errors.js';
import { baseOf, readJson, sendEmpty, sendJson, streamBodyToFile } from '../http/io.js';
import type { Route } from '../http/router.js';
import { checkFileName, oneOf } from '../http/validate.js';
import { checkBatchWritable, placeInBatch, tmpFile } from './batches.js';

interface SessionRow {
  id: string;
  batch_id: number;
  filename: string;
  file_size: number;
  part_size: number;
  owner: string;
  created_at_ms: number;
}

interface PartRow {
  part_num: number;
  part_id: string;
  size: number;
}

const partCount = (s: SessionRow): number => Math.ceil(s.file_size / s.part_size);
const expectedSize = (s: SessionRow, n: number): number => (n < partCount(s) ? s.part_size : s.file_size - (partCount(s) - 1) * s.part_size);

function parseFileSize(v: unknown): number {
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
    throw badRequest('"file_size" is required: a positive integer number of bytes (an integer or a string of digits)');
  }
  return n;
}

/**
 * Multipart upload (spec 3.3, 4.2). Parts must be numbered consecutively from 1: a part is
 * taken only once its predecessor has at least begun to arrive. So that clients may still
 * send parts in parallel, a part whose predecessor has not begun waits a short grace period
 * for it before it is refused. Every part but the last must be exactly part_size bytes.
 */
export function multipartRoutes(core: SandboxCore): Route[] {
  const begun = new Map<string, Set<number>>();
  const waiters = new Map<string, (() => void)[]>();
  const committing = new Set<string>();
  /** Parts still streaming, per session: a commit must not move the data file under them. */
  const inflight = new Map<string, number>();

  const dataFile = (id: string): string => join(core.partsDir, id, 'data');
  const session = (id: string): SessionRow => {
    const s = core.db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined;
    if (!s) throw notFound(`upload session ${id} not found`);
    return s;
  };
  const parts = (id: string): PartRow[] =>
    core.db.prepare('SELECT part_num, part_id, size FROM parts WHERE session_id = ? ORDER BY part_num').all(id) as PartRow[];
  const hasStarted = (id: string, n: number): boolean =>
    n === 1 || (begun.get(id)?.has(n - 1) ?? false) || core.db.prepare('SELECT 1 FROM parts WHERE session_id = ? AND part_num = ?').get(id, n - 1) !== undefined;
  const markBegun = (id: string, n: number): void => {
    let set = begun.get(id);
    if (!set) begun.set(id, (set = new Set()));
    set.add(n);
    for (const wake of waiters.get(id) ?? []) wake();
    waiters.delete(id);
  };
  const waitForPredecessor = async (id: string, n: number): Promise<boolean> => {
    const deadline = Date.now() + core.opts.partOrderGraceMs;
    while (!hasStarted(id, n)) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        const list = waiters.get(id) ?? [];
        list.push(() => {
          clearTimeout(t);
          resolve();
        });
        waiters.set(id, list);
      });
    }
    return true;
  };
  const forget = async (id: string): Promise<void> => {
    core.db.transaction(() => {
      core.db.prepare('DELETE FROM parts WHERE session_id = ?').run(id);
      core.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
    })();
    begun.delete(id);
    await rm(join(core.partsDir, id), { recursive: true, force: true });
  };

  return [
    {
      method: 'POST', pattern: '/v2/batches/multipart-upload', logType: 'api_v2', auth: 'v2',
      async handler({ req, res, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        if (body.batch_id === undefined || body.batch_id === null) throw badRequest('"batch_id" is required');
        if (typeof body.batch_id !== 'number' || !Number.isSafeInteger(body.batch_id)) throw badRequest('"batch_id" must be an integer');
        if (typeof body.filename !== 'string') throw badRequest('"filename" is required and must be a string');
        const filename = checkFileName(body.filename);
        const fileSize = parseFileSize(body.file_size);
        const b = core.visibleBatch(user, body.batch_id);
        checkBatchWritable(core, b);
        const id = randomBytes(16).toString('hex');
        core.db
          .prepare('INSERT INTO sessions (id, batch_id, filename, file_size, part_size, owner, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)')
          .run(id, b.id, filename, fileSize, core.opts.partSize, user.username, Date.now());
        await mkdir(join(core.partsDir, id), { recursive: true });
        // Parts are written in place at their offsets, so commit is a rename, not a copy.
        await writeFile(dataFile(id), '');
        await truncate(dataFile(id), fileSize);
        // The service names the new session in Location, as an absolute address.
        sendJson(res, 201, { session_id: id, part_size: core.opts.partSize }, { Location: `${baseOf(req)}/v2/batches/multipart-upload/sessions/${id}` });
      },
    },
    {
      method: 'PUT', pattern: '/v2/batches/multipart-upload/sessions/:session_id/parts/:part_num', logType: 'api_v2', auth: 'v2',
      async handler({ req, res, params, user }) {
        const s = session(params.session_id as string);
        core.visibleBatch(user, s.batch_id);
        const raw = params.part_num as string;
        const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
        const total = partCount(s);
        if (!Number.isSafeInteger(n) || n < 1) throw badRequest(`part number "${raw}" must be an integer starting at 1`);
        if (n > total) throw badRequest(`part ${n} is past the last part: file_size ${s.file_size} in parts of ${s.part_size} bytes makes ${total} part(s)`);
        const want = expectedSize(s, n);
        const declared = req.headers['content-length'];
        if (declared !== undefined && Number(declared) !== want) {
          throw badRequest(`part ${n} must be ${want} bytes (part_size ${s.part_size}${n === total ? ', last part' : ''}); Content-Length says ${declared}`);
        }
        if (!(await waitForPredecessor(s.id, n))) {
          throw badRequest(`part ${n} is not the next part: parts are numbered consecutively from 1 and part ${n - 1} has not been uploaded`);
        }
        markBegun(s.id, n);
        // Until this part is complete it does not count as uploaded: a failed re-upload must not
        // leave an older row pointing at bytes it half overwrote.
        core.db.prepare('DELETE FROM parts WHERE session_id = ? AND part_num = ?').run(s.id, n);
        inflight.set(s.id, (inflight.get(s.id) ?? 0) + 1);
        let size: number;
        try {
          size = await streamBodyToFile(req, dataFile(s.id), { maxBytes: want, offset: (n - 1) * s.part_size });
        } finally {
          const left = (inflight.get(s.id) ?? 1) - 1;
          if (left > 0) inflight.set(s.id, left);
          else inflight.delete(s.id);
        }
        if (size !== want) {
          throw badRequest(`part ${n} must be ${want} bytes (part_size ${s.part_size}${n === total ? ', last part' : ''}); got ${size}`);
        }
        // The session may have been aborted or committed while this part streamed in.
        if (!core.db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(s.id)) throw notFound(`upload session ${s.id} not found`);
        const partId = randomBytes(12).toString('hex');
        core.db.prepare('INSERT OR REPLACE INTO parts (session_id, part_num, part_id, size) VALUES (?, ?, ?, ?)').run(s.id, n, partId, size);
        sendJson(res, 201, { part_id: partId, part_num: n });
      },
    },
    {
      method: 'POST', pattern: '/v2/batches/multipart-upload/sessions/:session_id', logType: 'api_v2', auth: 'v2',
      async handler({ req, res, params, user }) {
        const s = session(params.session_id as string);
        const b = core.visibleBatch(user, s.batch_id);
        const body = await readJson(req, core.opts.maxJsonBytes);
        if (typeof body.action !== 'string') throw badRequest('"action" is required: commit or abort');
        const action = oneOf(body.action, ['commit', 'abort'] as const, '"action"');
        if (committing.has(s.id)) throw badRequest(`upload session ${s.id} is being committed`);
        if (action === 'abort') {
          await forget(s.id);
          sendEmpty(res, 201);
          return;
        }
        const listed = body.parts;
        if (!Array.isArray(listed)) throw badRequest('"parts" is required for commit: an array of {part_num, part_id}');
        const uploaded = new Map(parts(s.id).map((p) => [p.part_num, p]));
        const total = partCount(s);
        if (listed.length !== total) throw badRequest(`commit lists ${listed.length} part(s); file_size ${s.file_size} needs ${total}`);
        let sum = 0;
        listed.forEach((item: unknown, i) => {
          const p = item as { part_num?: unknown; part_id?: unknown } | null;
          if (!p || typeof p.part_num !== 'number' || typeof p.part_id !== 'string') {
            throw badRequest(`parts[${i}] must be {part_num: integer, part_id: string}`);
          }
          if (p.part_num !== i + 1) throw badRequest(`parts must be listed in order from 1: parts[${i}] is part ${p.part_num}, expected ${i + 1}`);
          const up = uploaded.get(p.part_num);
          if (!up) throw badRequest(`part ${p.part_num} was never uploaded`);
          if (up.part_id !== p.part_id) throw badRequest(`part_id of part ${p.part_num} does not match the uploaded part`);
          sum += up.size;
        });
        if (sum !== s.file_size) throw badRequest(`the parts add up to ${sum} bytes, not the file_size ${s.file_size}`);
        if (inflight.has(s.id)) throw badRequest(`upload session ${s.id} still has parts being uploaded; commit after they finish`);
        checkBatchWritable(core, b);
        committing.add(s.id);
        try {
          const tmp = tmpFile(core);
          await rename(dataFile(s.id), tmp);
          await placeInBatch(core, b, tmp, s.filename);
          await forget(s.id);
        } finally {
          committing.delete(s.id);
        }
        sendEmpty(res, 201);
      },
    },
  ];
}

