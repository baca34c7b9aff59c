/** Runs: start through a deployment or an app, list, get, delete (spec 4.3b, 4.4, 4.5, 4.6). */
import {
  parseDeleteRun, parseRunList, parseRunRecord,
  type AppRunRequest, type DeleteRunFlags, type DeleteRunResponse, type DeploymentRunRequest, type ListRunsQuery, type RunRecordView,
} from '../../../shared/service/index.js';
import { isServiceError } from './errors.js';
import { seg, type Transport } from './http.js';
import type { CallOptions } from './jobs.js';

/** A run record that always has its id, and keeps in `extra` what its view does not name. */
export type Run = RunRecordView;

export interface StartedRun extends Run {
  /** True when the start failed ambiguously and the run it made was found by listing (see http.ts). */
  recovered: boolean;
}

const normDir = (p: string | null | undefined): string | null => (p == null ? null : p.split('/').filter(Boolean).join('/'));

/** Every run matching the query, following limit/offset pages. */
export async function listAllRuns(t: Transport, q: Omit<ListRunsQuery, 'limit' | 'offset'>, o: CallOptions = {}): Promise<Run[]> {
  const limit = 500;
  const out: Run[] = [];
  for (let offset = 0; ; offset += limit) {
    const { runs } = await listRuns(t, { ...q, limit, offset }, o);
    out.push(...runs);
    if (runs.length < limit) return out;
  }
}

interface Wanted {
  op: string;
  by: Pick<ListRunsQuery, 'deployment_id' | 'app_id' | 'app_name'>;
  batch_id: number | undefined;
  input_dir: string | undefined;
  tags: string[] | undefined;
}

/** Starts a run; after an ambiguous failure, finds the run it made (or reports 'ambiguous'). */
async function startRun(t: Transport, w: Wanted, start: () => Promise<Run>, o: CallOptions): Promise<StartedRun> {
  const began = Date.now();
  try {
    return { ...(await start()), recovered: false };
  } catch (e) {
    if (!isServiceError(e, 'ambiguous')) throw e;
    const since = began - t.cfg.clockSkewMs;
    const user = t.cfg.username;
    const input = w.batch_id !== undefined ? `batch ${w.batch_id}` : w.input_dir ? `input_dir ${w.input_dir}` : 'its upstream integration';
    const found = await t.settleAmbiguous(
      e,
      async () =>
        (await listAllRuns(t, { ...w.by, ...(user ? { username: user } : {}), from_timestamp: Math.floor(since / 1000), order: 'ASCENDING' }, o)).filter(
          (r) =>
            (r.start_timestamp === undefined || r.start_timestamp >= since * 1e6) &&
            (r.batch_id ?? null) === (w.batch_id ?? null) &&
            normDir(r.input_dir) === normDir(w.input_dir) &&
            (!w.tags || JSON.stringify(r.tags ?? []) === JSON.stringify(w.tags)),
        ),
      { what: `${Object.values(w.by).filter(Boolean).join('/')} run${user ? ` by ${user}` : ''} on ${input} started since ${new Date(since).toISOString()}`, ids: (l) => l.map((r) => r.id).join(', ') },
      o.signal,
    );
    return { ...found, recovered: true };
  }
}

/** POST /v2/apps/deployments/{deployment_id}/runs: 202 with the run record. Not idempotent. */
export function startDeploymentRun(t: Transport, deploymentId: string, req: DeploymentRunRequest, o: CallOptions = {}): Promise<StartedRun> {
  const op = 'startDeploymentRun';
  return startRun(
    t,
    { op, by: { deployment_id: deploymentId }, batch_id: req.batch_id, input_dir: req.input_dir, tags: req.settings?.tags },
    () => t.json({ op, method: 'POST', path: `/v2/apps/deployments/${seg(deploymentId)}/runs`, json: req, idempotent: false, ok: [200, 201, 202], ...o }, parseRunRecord),
    o,
  );
}

/** POST /v2/apps/runs: 200 with the run record. Not idempotent. */
export function startAppRun(t: Transport, req: AppRunRequest, o: CallOptions = {}): Promise<StartedRun> {
  const op = 'startAppRun';
  const by = req.app_id ? { app_id: req.app_id } : { app_name: req.app_name };
  return startRun(
    t,
    { op, by, batch_id: req.batch_id, input_dir: req.input_dir, tags: req.settings?.tags },
    () => t.json({ op, method: 'POST', path: '/v2/apps/runs', json: req, idempotent: false, ok: [200, 201, 202], ...o }, parseRunRecord),
    o,
  );
}

/** GET /v2/apps/runs (default window: the last 24 hours). */
export function listRuns(t: Transport, q: ListRunsQuery = {}, o: CallOptions = {}): Promise<{ runs: Run[] }> {
  return t.json({ op: 'listRuns', method: 'GET', path: '/v2/apps/runs', query: { ...q }, idempotent: true, ok: [200], ...o }, parseRunList);
}

/** GET /v2/apps/runs/{run_id} */
export function getRun(t: Transport, runId: string, o: CallOptions = {}): Promise<Run> {
  return t.json({ op: 'getRun', method: 'GET', path: `/v2/apps/runs/${seg(runId)}`, idempotent: true, ok: [200], ...o }, parseRunRecord);
}

/** DELETE /v2/apps/runs/{run_id}: 202 with the ids of the deletion jobs (each may be null). */
export async function deleteRun(t: Transport, runId: string, flags: DeleteRunFlags = {}, o: CallOptions = {}): Promise<DeleteRunResponse> {
  const reply = await t.call({ op: 'deleteRun', method: 'DELETE', path: `/v2/apps/runs/${seg(runId)}`, query: { ...flags }, idempotent: true, ok: [200, 202, 204], ...o });
  return reply.text.trim() === '' ? parseDeleteRun({}) : t.parseBody('deleteRun', reply, parseDeleteRun);
}
