import { randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunRecord, RunSettings } from '../../shared/service/runs.js';
import type { AppDef, DeploymentDef } from '../catalog.js';
import type { SandboxCore } from '../core.js';
import { parseServicePath } from '../drive.js';
import { badRequest, forbidden, notFound } from '../http/errors.js';
import type { SandboxUser } from '../users.js';

export interface RunRow {
  id: string;
  owner: string;
  app_id: string;
  app_name: string;
  deployment_id: string | null;
  version: string;
  output_workspace: string;
  output_dir: string;
  batch_id: number | null;
  input_dir: string | null;
  input_paths: string;
  status: RunRecord['status'] & string;
  msg: string | null;
  start_ns: number;
  finish_ns: number | null;
  tags: string | null;
  settings: string;
  custom_keys: string;
  review: number;
  review_completed: number;
  case_info: string | null;
}

export type RunInput =
  | { kind: 'batch'; batchId: number }
  | { kind: 'dir'; dir: string }
  | { kind: 'mailbox'; folder: string; fromMs: number; toMs: number };

export interface NewRun {
  user: SandboxUser;
  app: AppDef;
  deployment: DeploymentDef | null;
  version: string | undefined;
  input: RunInput;
  outputWorkspace: string;
  outputDir: string | undefined;
  settings: RunSettings;
  review: boolean;
}

export function runRecord(r: RunRow): RunRecord {
  return {
    id: r.id,
    status: r.status,
    start_timestamp: r.start_ns,
    finish_timestamp: r.finish_ns,
    msg: r.msg,
    batch_id: r.batch_id,
    input_dir: r.input_dir,
    app_id: r.app_id,
    deployment_id: r.deployment_id,
    tags: r.tags === null ? null : (JSON.parse(r.tags) as string[]),
  };
}

/** Files below a folder, depth first and sorted, so a run's input order is deterministic. */
async function listFiles(disk: string, service: string, filter?: (mtimeMs: number) => boolean): Promise<string[]> {
  const out: string[] = [];
  const names = (await readdir(disk).catch(() => [] as string[])).sort();
  for (const name of names) {
    const st = await stat(join(disk, name)).catch(() => null);
    if (!st) continue;
    if (st.isDirectory()) out.push(...(await listFiles(join(disk, name), `${service}/${name}`, filter)));
    else if (!filter || filter(st.mtimeMs)) out.push(`${service}/${name}`);
  }
  return out;
}

async function inputPaths(core: SandboxCore, user: SandboxUser, input: RunInput): Promise<{ paths: string[]; batchId: number | null; inputDir: string | null }> {
  if (input.kind === 'batch') {
    const b = core.visibleBatch(user, input.batchId);
    const drive = core.drives.get(b.mount_point);
    if (!drive?.connected) throw badRequest(`batch ${b.id} is on drive "${b.mount_point}", which is disconnected: it cannot be run input`);
    return { paths: await listFiles(core.batchDir(b), `${b.mount_point}/${core.batchSuffix(b)}`), batchId: b.id, inputDir: null };
  }
  const folder = input.kind === 'dir' ? input.dir : input.folder;
  const p = parseServicePath(folder);
  core.drives.checkAccess(p, user, core.workspaces, false);
  const st = await stat(core.drives.diskPath(p)).catch(() => null);
  if (input.kind === 'dir') {
    if (!st) throw notFound(`input_dir ${p.text} does not exist`);
    if (!st.isDirectory()) throw badRequest(`input_dir ${p.text} is a file, not a folder`);
    return { paths: await listFiles(core.drives.diskPath(p), p.text), batchId: null, inputDir: p.text };
  }
  const inWindow = (m: number): boolean => m >= input.fromMs && m <= input.toMs;
  return { paths: st ? await listFiles(core.drives.diskPath(p), p.text, inWindow) : [], batchId: null, inputDir: null };
}

/** Validates inputs and outputs against the caller's context, records the run as RUNNING. */
export async function createRun(core: SandboxCore, n: NewRun): Promise<RunRow> {
  if (n.version !== undefined && !n.app.versions.includes(n.version)) {
    throw notFound(`app ${n.app.name} has no version "${n.version}" (versions: ${n.app.versions.join(', ')})`);
  }
  if (n.outputWorkspace && !core.canAccess(n.user, n.outputWorkspace)) throw forbidden(`you are not a member of workspace "${n.outputWorkspace}"`);
  const id = `run_${randomBytes(12).toString('hex')}`;
  let outputDir: string;
  if (n.outputDir !== undefined) {
    const p = parseServicePath(n.outputDir);
    core.drives.checkAccess(p, n.user, core.workspaces, true);
    outputDir = p.text;
  } else {
    outputDir = `${core.drives.defaultDrive().name}/${n.outputWorkspace ? `workspaces/${n.outputWorkspace}/` : ''}runs/${id}/output`;
  }
  const { paths, batchId, inputDir } = await inputPaths(core, n.user, n.input);
  const custom = { ...(n.deployment?.customKeys ?? n.app.customKeys), ...(n.settings.keys?.custom ?? {}) };
  const row: RunRow = {
    id,
    owner: n.user.username,
    app_id: n.app.id,
    app_name: n.app.name,
    deployment_id: n.deployment?.id ?? null,
    version: n.version ?? n.app.latest,
    output_workspace: n.outputWorkspace,
    output_dir: outputDir,
    batch_id: batchId,
    input_dir: inputDir,
    input_paths: JSON.stringify(paths),
    status: 'RUNNING',
    msg: null,
    start_ns: Date.now() * 1e6,
    finish_ns: null,
    tags: n.settings.tags ? JSON.stringify(n.settings.tags) : null,
    settings: JSON.stringify(n.settings),
    custom_keys: JSON.stringify(custom),
    review: n.review ? 1 : 0,
    review_completed: 0,
    case_info: null,
  };
  core.db
    .prepare(
      `INSERT INTO runs (id, owner, app_id, app_name, deployment_id, version, output_workspace, output_dir, batch_id, input_dir, input_paths,
        status, msg, start_ns, finish_ns, tags, settings, custom_keys, review, review_completed, case_info)
       VALUES (@id, @owner, @app_id, @app_name, @deployment_id, @version, @output_workspace, @output_dir, @batch_id, @input_dir, @input_paths,
        @status, @msg, @start_ns, @finish_ns, @tags, @settings, @custom_keys, @review, @review_completed, @case_info)`,
    )
    .run(row);
  return row;
}

/** Where a run writes its log; beside its output unless the output went elsewhere. */
export function logDir(core: SandboxCore, r: RunRow): string {
  return `${core.drives.defaultDrive().name}/${r.output_workspace ? `workspaces/${r.output_workspace}/` : ''}runs/${r.id}/logs`;
}
