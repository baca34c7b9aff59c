import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { BatchInfo, FileNode } from '../../shared/service/batches.js';
import type { BatchRow, SandboxCore } from '../core.js';
import { badRequest, forbidden } from '../http/errors.js';
import { readJson, sendEmpty, sendJson, streamBodyToFile } from '../http/io.js';
import type { Route } from '../http/router.js';
import { checkFileName, optString, queryInt, reqString } from '../http/validate.js';
import { personalWorkspace, type SandboxUser } from '../users.js';
import { jobStatusHandler } from './jobs.js';

export function batchInfo(core: SandboxCore, b: BatchRow): BatchInfo {
  return {
    id: b.id,
    name: b.name,
    workspace: b.workspace,
    mount_point: b.mount_point,
    repo_owner: b.workspace.startsWith('personal-') ? b.workspace.slice('personal-'.length) : core.users.org,
    batch_owner: b.owner,
    created_at_ms: b.created_at_ms,
    updated_at_ms: b.updated_at_ms,
    path_suffix: core.batchSuffix(b),
  };
}

/** Spec 4.1 rule 3: only a batch on the current default drive takes new files. */
export function checkBatchWritable(core: SandboxCore, b: BatchRow): void {
  const drive = core.drives.get(b.mount_point);
  if (!drive?.connected) throw badRequest(`batch ${b.id} is on drive "${b.mount_point}", which is disconnected`);
  if (!drive.is_default) {
    throw badRequest(`batch ${b.id} is on drive "${b.mount_point}", which is no longer the default drive: no more files can be uploaded to it`);
  }
}

export function fileNode(fullPath: string, name: string, st: { size: number; mtimeMs: number; isDirectory(): boolean }, canWrite: boolean): FileNode {
  return {
    full_path: fullPath,
    name,
    metadata: { node_type: st.isDirectory() ? 'folder' : 'file', size: st.isDirectory() ? 0 : st.size, modified_timestamp: Math.floor(st.mtimeMs / 1000) },
    perms: { can_read: true, can_write: canWrite, can_delete: canWrite },
  };
}

function touch(core: SandboxCore, b: BatchRow): void {
  core.db.prepare('UPDATE batches SET updated_at_ms = ? WHERE id = ?').run(Date.now(), b.id);
}

/** Moves a finished upload into a batch, replacing a file of the same name (spec 4.1 rule 1). */
export async function placeInBatch(core: SandboxCore, b: BatchRow, tmpPath: string, filename: string): Promise<void> {
  const dir = core.batchDir(b);
  await mkdir(dir, { recursive: true });
  await rename(tmpPath, join(dir, filename));
  touch(core, b);
}

export function tmpFile(core: SandboxCore): string {
  return join(core.tmpDir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
}

function resolveWorkspace(core: SandboxCore, user: SandboxUser, given: string | undefined): string {
  if (given === undefined) {
    const personal = personalWorkspace(user);
    if (!personal) throw badRequest('"workspace" is required: a service account has no personal workspace');
    return personal;
  }
  if (!core.canAccess(user, given)) throw forbidden(`you are not a member of workspace "${given}"`);
  return given;
}

export function batchRoutes(core: SandboxCore): Route[] {
  return [
    {
      method: 'POST', pattern: '/v2/batches', logType: 'api_v2', auth: 'v2',
      async handler({ req, res, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        const name = reqString(body, 'name', 255);
        const workspace = resolveWorkspace(core, user, optString(body, 'workspace'));
        const now = Date.now();
        const drive = core.drives.defaultDrive();
        const r = core.db
          .prepare('INSERT INTO batches (name, workspace, mount_point, owner, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)')
          .run(name, workspace, drive.name, user.username, now, now);
        sendJson(res, 200, { id: Number(r.lastInsertRowid) });
      },
    },
    {
      method: 'GET', pattern: '/v2/batches', logType: 'api_v2', auth: 'v2',
      handler({ res, query, user }) {
        const workspace = query.get('workspace');
        if (workspace && !core.canAccess(user, workspace)) throw forbidden(`you are not a member of workspace "${workspace}"`);
        const username = query.get('username');
        const limit = queryInt(query, 'limit');
        const offset = queryInt(query, 'offset') ?? 0;
        const rows = (core.db.prepare('SELECT * FROM batches ORDER BY id').all() as BatchRow[])
          .filter((b) => core.canAccess(user, b.workspace))
          .filter((b) => !workspace || b.workspace === workspace)
          .filter((b) => !username || b.owner === username);
        const page = rows.slice(offset, limit === undefined ? undefined : offset + limit);
        sendJson(res, 200, { batches: page.map((b) => batchInfo(core, b)) });
      },
    },
    {
      method: 'GET', pattern: '/v2/batches/jobs/:job_id', logType: 'api_v2', auth: 'v2',
      handler: jobStatusHandler(core),
    },
    {
      method: 'GET', pattern: '/v2/batches/:batch_id', logType: 'api_v2', auth: 'v2',
      handler({ res, params, user }) {
        sendJson(res, 200, batchInfo(core, core.visibleBatch(user, params.batch_id as string)));
      },
    },
    {
      method: 'DELETE', pattern: '/v2/batches/:batch_id', logType: 'api_v2', auth: 'v2',
      handler({ res, params, user }) {
        const b = core.visibleBatch(user, params.batch_id as string);
        const jobId = core.jobs.create('delete-batch', { batch_id: b.id });
        sendJson(res, 202, { job_id: jobId }, { Location: `/v2/jobs/${jobId}` });
      },
    },
    {
      method: 'PUT', pattern: '/v2/batches/:batch_id/files/:filename', logType: 'api_v2', auth: 'v2',
      async handler({ req, res, params, user }) {
        const b = core.visibleBatch(user, params.batch_id as string);
        const filename = checkFileName(params.filename as string);
        checkBatchWritable(core, b);
        const tmp = tmpFile(core);
        await streamBodyToFile(req, tmp);
        await placeInBatch(core, b, tmp, filename);
        sendEmpty(res, 204);
      },
    },
    {
      method: 'DELETE', pattern: '/v2/batches/:batch_id/files/:filename', logType: 'api_v2', auth: 'v2',
      handler({ res, params, user }) {
        const b = core.visibleBatch(user, params.batch_id as string);
        const filename = checkFileName(params.filename as string);
        const jobId = core.jobs.create('delete-batch-file', { batch_id: b.id, filename });
        // Spec 2.4: an empty body; the job is found through Location.
        sendEmpty(res, 202, { Location: `/v2/jobs/${jobId}` });
      },
    },
    {
      method: 'GET', pattern: '/v2/batches/:batch_id/files', logType: 'api_v2', auth: 'v2',
      async handler({ res, params, query, user }) {
        const b = core.visibleBatch(user, params.batch_id as string);
        const pageSize = queryInt(query, 'page_size') ?? 100;
        if (pageSize < 1 || pageSize > 1000) throw badRequest('query "page_size" must be between 1 and 1000');
        const token = query.get('start_token');
        let after = '';
        if (token) {
          after = Buffer.from(token, 'base64url').toString('utf8');
          if (!after.startsWith('after:')) throw badRequest('query "start_token" is not a token this service gave out');
          after = after.slice('after:'.length);
        }
        const dir = core.batchDir(b);
        const names = (await readdir(dir).catch(() => [] as string[])).sort();
        const rest = token ? names.filter((n) => n > after) : names;
        const page = rest.slice(0, pageSize);
        const nodes: FileNode[] = [];
        for (const name of page) {
          const st = await stat(join(dir, name)).catch(() => null);
          if (st) nodes.push(fileNode(`${b.mount_point}/${core.batchSuffix(b)}/${name}`, name, st, true));
        }
        const hasMore = rest.length > page.length;
        const last = page[page.length - 1];
        sendJson(res, 200, {
          nodes,
          has_more: hasMore,
          ...(hasMore && last !== undefined ? { next_page_token: Buffer.from(`after:${last}`).toString('base64url') } : {}),
        });
      },
    },
  ];
}

/** Job work for batch deletions. */
export function batchJobWork(core: SandboxCore) {
  return {
    async 'delete-batch'(t: Record<string, unknown>): Promise<string> {
      const b = core.batchRow(t.batch_id as number);
      if (!b) return `batch ${String(t.batch_id)} was already deleted`;
      await rm(core.batchDir(b), { recursive: true, force: true });
      const sessions = core.db.prepare('SELECT id FROM sessions WHERE batch_id = ?').all(b.id) as { id: string }[];
      for (const s of sessions) await rm(join(core.partsDir, s.id), { recursive: true, force: true });
      core.db.transaction(() => {
        core.db.prepare('DELETE FROM parts WHERE session_id IN (SELECT id FROM sessions WHERE batch_id = ?)').run(b.id);
        core.db.prepare('DELETE FROM sessions WHERE batch_id = ?').run(b.id);
        core.db.prepare('DELETE FROM batches WHERE id = ?').run(b.id);
      })();
      return `batch ${b.id} and its files were deleted`;
    },
    async 'delete-batch-file'(t: Record<string, unknown>): Promise<string> {
      const b = core.batchRow(t.batch_id as number);
      if (!b) throw new Error(`batch ${String(t.batch_id)} no longer exists`);
      const path = join(core.batchDir(b), t.filename as string);
      const st = await stat(path).catch(() => null);
      if (!st) throw new Error(`file "${String(t.filename)}" is not in batch ${b.id}`);
      await rm(path, { force: true });
      touch(core, b);
      return `file "${String(t.filename)}" was deleted from batch ${b.id}`;
    },
  };
}
