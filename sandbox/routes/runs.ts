import { RUN_SORT_FIELDS, RUN_STATUSES, SORT_ORDERS, type RunStatus } from '../../shared/service/runs.js';
import type { RunResultsPage } from '../../shared/service/results.js';
import type { ProcessedFile } from '../processing/index.js';
import { APPS, findDeployment, type AppDef } from '../catalog.js';
import type { SandboxCore } from '../core.js';
import { parseServicePath } from '../drive.js';
import { badRequest, forbidden, notFound } from '../http/errors.js';
import { readJson, sendJson } from '../http/io.js';
import type { Route } from '../http/router.js';
import { oneOf, optBool, optInt, optNumber, optString, queryBool, queryInt, queryList } from '../http/validate.js';
import { createRun, logDir, runRecord, type RunInput, type RunRow } from '../runs/create.js';
import type { RunExecutor } from '../runs/executor.js';
import { checkSettings } from '../runs/settings.js';
import { shapeCaseInfo, shapeFile, upgradeStoredCaseInfo, upgradeStoredFile } from '../runs/shape.js';
import { personalWorkspace, type SandboxUser } from '../users.js';

function batchOrDir(body: Record<string, unknown>): RunInput | null {
  const batchId = optInt(body, 'batch_id');
  const inputDir = optString(body, 'input_dir');
  if (batchId !== undefined && inputDir !== undefined) throw badRequest('give either "batch_id" or "input_dir", not both');
  if (batchId !== undefined) return { kind: 'batch', batchId };
  if (inputDir !== undefined) return { kind: 'dir', dir: inputDir };
  return null;
}

/**
 * Spec 4.3b: `owner` is the account that made the app and defaults to the caller's username; a
 * marketplace app is found by name only under its publisher's account name. An app id names one
 * app on its own, so `owner` is then only checked when given.
 */
function findApp(body: Record<string, unknown>, user: SandboxUser): AppDef {
  const name = optString(body, 'app_name');
  const id = optString(body, 'app_id');
  const given = optString(body, 'owner');
  if (name === undefined && id === undefined) throw badRequest('"app_name" or "app_id" is required');
  const owner = given ?? (id === undefined ? user.username : undefined);
  const app = APPS.find((a) => (id === undefined || a.id === id) && (name === undefined || a.name === name));
  if (!app || (owner !== undefined && owner !== app.owner)) {
    throw notFound(
      `app ${id ?? name} not found${owner ? ` for owner "${owner}"${given === undefined ? ' (owner defaults to your username)' : ''}` : ''}; ` +
        `available: ${APPS.map((a) => `${a.name} (id ${a.id}, owner ${a.owner})`).join(', ')}`,
    );
  }
  return app;
}

export function runRoutes(core: SandboxCore, runs: RunExecutor): Route[] {
  const visibleRun = (user: SandboxUser, id: string): RunRow => {
    const r = runs.row(id);
    if (!r || !(r.owner === user.username || (r.output_workspace && core.canAccess(user, r.output_workspace)))) throw notFound(`run ${id} not found`);
    return r;
  };

  return [
    {
      method: 'POST', pattern: '/v2/apps/deployments/:deployment_id/runs', logType: 'app_deployment_run_v2', auth: 'v2',
      async handler({ req, res, params, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes, { optional: true });
        const dep = findDeployment(params.deployment_id as string);
        if (!dep) throw notFound(`deployment ${params.deployment_id} not found`);
        let input = batchOrDir(body);
        const manual = optBool(body, 'manual_upstream_integration') ?? false;
        const from = optNumber(body, 'from_timestamp');
        const to = optNumber(body, 'to_timestamp');
        if (manual) {
          if (input) throw badRequest('"manual_upstream_integration" takes its input from the integration: do not also give batch_id or input_dir');
          if (!dep.upstream) throw badRequest(`deployment ${dep.id} has no upstream integration configured`);
          if (from === undefined || to === undefined) throw badRequest('"from_timestamp" and "to_timestamp" are required: the upstream integration is a mailbox');
          if (from > to) throw badRequest('"from_timestamp" is after "to_timestamp"');
          input = { kind: 'mailbox', folder: dep.upstream.folder, fromMs: from, toMs: to };
        }
        if (!input) throw badRequest('"batch_id" or "input_dir" is required (or "manual_upstream_integration")');
        const settings = checkSettings(core, body.settings, { what: `deployment ${dep.id}`, customKeys: dep.customKeys, secretKeys: dep.secretKeys }, dep.outputWorkspace);
        const row = await createRun(core, {
          user, app: dep.app, deployment: dep, version: optString(body, 'version'), input,
          outputWorkspace: dep.outputWorkspace, outputDir: optString(body, 'output_dir'), settings, review: dep.review,
        });
        runs.start(row.id);
        sendJson(res, 202, runRecord(row));
      },
    },
    {
      method: 'POST', pattern: '/v2/apps/runs', logType: 'app_v2', auth: 'v2',
      async handler({ req, res, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        const app = findApp(body, user);
        const input = batchOrDir(body);
        if (!input) throw badRequest('"batch_id" or "input_dir" is required');
        const outputDir = optString(body, 'output_dir');
        const given = optString(body, 'output_workspace');
        const personal = personalWorkspace(user);
        if (given === undefined && outputDir === undefined && !personal) {
          throw badRequest('a service account has no personal workspace: give "output_workspace" or "output_dir"');
        }
        // output_dir overrides output_workspace as the location; its workspace, if it lies in one, is the run's.
        const outputWorkspace = given ?? (outputDir !== undefined ? (parseServicePath(outputDir).workspace ?? '') : (personal as string));
        const settings = checkSettings(core, body.settings, { what: `app ${app.name}`, customKeys: app.customKeys, secretKeys: [] }, outputWorkspace);
        const row = await createRun(core, { user, app, deployment: null, version: optString(body, 'version'), input, outputWorkspace, outputDir, settings, review: false });
        runs.start(row.id);
        sendJson(res, 200, runRecord(row));
      },
    },
    {
      method: 'GET', pattern: '/v2/apps/runs', logType: 'app_v2', auth: 'v2',
      handler({ res, query, user }) {
        const statuses = queryList(query, 'status')?.map((s) => oneOf(s, RUN_STATUSES, 'query "status"'));
        const workspaces = queryList(query, 'output_workspaces');
        for (const w of workspaces ?? []) if (!core.canAccess(user, w)) throw forbidden(`you have no access to workspace "${w}"`);
        const nowS = Date.now() / 1000;
        const from = queryInt(query, 'from_timestamp') ?? nowS - 24 * 3600;
        const to = queryInt(query, 'to_timestamp') ?? nowS;
        const sortBy = oneOf(query.get('sort_by') ?? 'start_timestamp', RUN_SORT_FIELDS, 'query "sort_by"');
        const order = oneOf(query.get('order') ?? 'DESCENDING', SORT_ORDERS, 'query "order"');
        const limit = queryInt(query, 'limit') ?? 100;
        const offset = queryInt(query, 'offset') ?? 0;
        const eq = (key: string, v: string | null): boolean => query.get(key) === null || query.get(key) === v;
        const rows = (core.db.prepare('SELECT * FROM runs').all() as RunRow[]).filter((r) => {
          const startS = r.start_ns / 1e9;
          const visible = r.owner === user.username || (r.output_workspace !== '' && core.canAccess(user, r.output_workspace));
          return (
            visible && startS >= from && startS <= to &&
            eq('app_id', r.app_id) && eq('app_name', r.app_name) && eq('deployment_id', r.deployment_id) &&
            eq('username', r.owner) && eq('run_id', r.id) &&
            (!statuses || statuses.includes(r.status as RunStatus)) &&
            (!workspaces || workspaces.includes(r.output_workspace))
          );
        });
        const dir = order === 'ASCENDING' ? 1 : -1;
        rows.sort((a, b) => dir * (sortBy === 'status' ? a.status.localeCompare(b.status) || a.start_ns - b.start_ns : a.start_ns - b.start_ns || a.id.localeCompare(b.id)));
        sendJson(res, 200, { runs: rows.slice(offset, offset + limit).map(runRecord) });
      },
    },
    {
      method: 'GET', pattern: '/v2/apps/runs/:run_id', logType: 'app_v2', auth: 'v2',
      handler({ res, params, user }) {
        sendJson(res, 200, runRecord(visibleRun(user, params.run_id as string)));
      },
    },
    {
      method: 'DELETE', pattern: '/v2/apps/runs/:run_id', logType: 'app_v2', auth: 'v2',
      handler({ res, params, query, user }) {
        const r = visibleRun(user, params.run_id as string);
        const flag = (k: string): boolean => queryBool(query, k, true);
        const [db, input, output, logs] = [flag('delete_db_data'), flag('delete_input'), flag('delete_output'), flag('delete_logs')];
        if (r.status === 'RUNNING') {
          // Its input and output are about to go: processing stops, and a run whose record is kept says why.
          runs.cancel(r.id, `cancelled: run deleted by ${user.username} while running`, 'RUNNING');
        }
        let inputJob: string | null = null;
        if (input && r.batch_id !== null) inputJob = core.jobs.create('delete-batch', { batch_id: r.batch_id });
        else if (input && r.input_dir !== null) inputJob = core.jobs.create('delete-path', { path: r.input_dir });
        const outputJob = output ? core.jobs.create('delete-path', { path: r.output_dir }) : null;
        const logJob = logs ? core.jobs.create('delete-path', { path: logDir(core, r) }) : null;
        if (db) core.jobs.create('delete-run-db', { run_id: r.id });
        sendJson(res, 202, { delete_input_dir_job_id: inputJob, delete_output_dir_job_id: outputJob, delete_log_dir_job_id: logJob });
      },
    },
    {
      method: 'GET', pattern: '/v2/apps/runs/:run_id/results', logType: 'app_v2', auth: 'v2',
      handler({ res, params, query, user }) {
        const r = visibleRun(user, params.run_id as string);
        const flags = {
          include_review_results: queryBool(query, 'include_review_results', false),
          include_confidence_scores: queryBool(query, 'include_confidence_scores', false),
          include_validation_results: queryBool(query, 'include_validation_results', false),
          include_source_info: queryBool(query, 'include_source_info', false),
        };
        const offset = queryInt(query, 'file_offset') ?? 0;
        const size = core.opts.resultsPageSize;
        const total = (core.db.prepare('SELECT COUNT(*) AS n FROM run_files WHERE run_id = ?').get(r.id) as { n: number }).n;
        const page = (core.db.prepare('SELECT result FROM run_files WHERE run_id = ? AND idx >= ? ORDER BY idx LIMIT ?').all(r.id, offset, size) as { result: string }[])
          .map((x) => upgradeStoredFile(JSON.parse(x.result) as ProcessedFile));
        const caseInfo = r.case_info ? shapeCaseInfo(upgradeStoredCaseInfo(JSON.parse(r.case_info)), flags) : { fields: [] };
        const body: RunResultsPage = {
          id: r.id,
          status: r.status,
          message: r.msg,
          start_timestamp: r.start_ns,
          finish_timestamp: r.finish_ns,
          // A string in the results body (an integer in run records), as the service sends it.
          batch_id: r.batch_id === null ? null : String(r.batch_id),
          files: page.map((f) => shapeFile(f, flags)),
          // The published examples give keys as a list of one object; readers take both forms.
          keys: [{ custom: JSON.parse(r.custom_keys) as Record<string, unknown> }],
          case_info: caseInfo,
          review_completed: r.review_completed === 1,
          has_more: offset + page.length < total,
        };
        sendJson(res, 200, body);
      },
    },
  ];
}

export function runJobWork(core: SandboxCore) {
  return {
    async 'delete-run-db'(t: Record<string, unknown>): Promise<string> {
      core.db.transaction(() => {
        core.db.prepare('DELETE FROM run_files WHERE run_id = ?').run(t.run_id);
        core.db.prepare('DELETE FROM runs WHERE id = ?').run(t.run_id);
      })();
      return `run ${String(t.run_id)} data deleted`;
    },
  };
}
