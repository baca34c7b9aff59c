import { editTimestamp, type ResultDocument } from '../../shared/service/results.js';
import { DEPLOYMENTS } from '../catalog.js';
import type { SandboxCore } from '../core.js';
import { badRequest, notFound } from '../http/errors.js';
import { readJson, sendJson } from '../http/io.js';
import type { Route } from '../http/router.js';
import { oneOf, optBool, optString, optStringArray } from '../http/validate.js';
import type { RunExecutor } from '../runs/executor.js';
import type { FaultInjector } from '../faults.js';

/**
 * Calls under /sandbox/: not part of the service API. They stand in for what people do in
 * the service's web UI (review a run, cancel it, change drives) so tests and users can
 * drive every state. Faults are never injected here.
 */
export function sandboxRoutes(core: SandboxCore, runs: RunExecutor, faults: FaultInjector | null): Route[] {
  const runFor = (id: string) => {
    const r = runs.row(id);
    if (!r) throw notFound(`run ${id} not found`);
    return r;
  };
  return [
    {
      method: 'GET', pattern: '/sandbox/health', logType: 'api_v2', auth: 'none',
      handler({ res }) {
        sendJson(res, 200, {
          ok: true,
          org: core.users.org,
          part_size: core.opts.partSize,
          deployments: DEPLOYMENTS.map((d) => ({ id: d.id, app: d.app.name, review: d.review, upstream: d.upstream?.kind ?? null })),
          faults: faults ? { spec: faults.spec, injected: faults.counts } : null,
          // Most workers (--ocr-workers), those started, and those reading a page now.
          ocr: { max_workers: core.ocr.size, workers: core.ocr.workers, busy: core.ocr.active },
        });
      },
    },
    {
      method: 'POST', pattern: '/sandbox/runs/:run_id/review', logType: 'review_v2', auth: 'sandbox',
      async handler({ req, res, params, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        if (typeof body.action !== 'string') throw badRequest('"action" is required: approve or reject');
        const action = oneOf(body.action, ['approve', 'reject'] as const, '"action"');
        const r = runFor(params.run_id as string);
        if (r.status !== 'STOPPED_AT_CHECKPOINT') throw badRequest(`run ${r.id} is ${r.status}, not waiting for review`);
        if (action === 'reject') {
          runs.finish(r.id, 'FAILED', `rejected in review by ${user.username}${body.reason ? `: ${String(body.reason)}` : ''}`);
        } else {
          // Edit times as the service writes them: `MM/DD/YYYY HH:MM:SS`, UTC.
          const stamp = editTimestamp(Date.now());
          for (const [idx, f] of runs.files(r.id).entries()) {
            for (const d of f.documents) markReviewed(d, user.username, stamp);
            core.db.prepare('UPDATE run_files SET result = ? WHERE run_id = ? AND idx = ?').run(JSON.stringify(f), r.id, idx);
          }
          core.db.prepare('UPDATE runs SET review_completed = 1 WHERE id = ?').run(r.id);
          runs.finish(r.id, 'COMPLETE', `review approved by ${user.username}`);
        }
        sendJson(res, 200, { id: r.id, status: runs.row(r.id)?.status });
      },
    },
    {
      method: 'POST', pattern: '/sandbox/runs/:run_id/cancel', logType: 'app_v2', auth: 'sandbox',
      handler({ res, params, user }) {
        const r = runFor(params.run_id as string);
        if (r.status !== 'RUNNING' && r.status !== 'STOPPED_AT_CHECKPOINT') throw badRequest(`run ${r.id} is ${r.status}; only a running run can be cancelled`);
        runs.cancel(r.id, `cancelled by ${user.username}`);
        sendJson(res, 200, { id: r.id, status: 'CANCELLED' });
      },
    },
    {
      // Stands in for a service that cannot finish a job: the next `count` jobs of `kind` FAIL, their work undone.
      method: 'POST', pattern: '/sandbox/jobs/fail', logType: 'api_v2', auth: 'sandbox',
      async handler({ req, res }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        const kind = optString(body, 'kind');
        if (kind === undefined) throw badRequest('"kind" is required, e.g. "delete-batch-file"');
        const count = body.count === undefined ? 1 : body.count;
        if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw badRequest('"count" must be a whole number, 0 or more');
        const message = optString(body, 'message') ?? 'the job failed (injected by the sandbox)';
        try {
          core.jobs.failNext(kind, count, message);
        } catch (e) {
          throw badRequest((e as Error).message);
        }
        sendJson(res, 200, { kind, count, message });
      },
    },
    {
      // Holds runs started from now on (accepted, RUNNING, not processed), or releases every held run.
      method: 'POST', pattern: '/sandbox/runs/hold', logType: 'app_v2', auth: 'sandbox',
      async handler({ req, res }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        const hold = optBool(body, 'hold');
        if (hold === undefined) throw badRequest('"hold" is required: true to hold new runs, false to release them');
        const released = hold ? 0 : runs.heldRuns;
        runs.hold(hold);
        sendJson(res, 200, { hold, released });
      },
    },
    {
      method: 'POST', pattern: '/sandbox/drives', logType: 'datasource_v2', auth: 'sandbox',
      async handler({ req, res }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        const known = new Set(core.drives.all().map((d) => d.name));
        const check = (names: string[] | undefined): string[] => {
          for (const n of names ?? []) if (!known.has(n)) throw badRequest(`unknown drive "${n}"`);
          return names ?? [];
        };
        const dflt = optString(body, 'default');
        const disconnect = check(optStringArray(body, 'disconnect'));
        const connect = check(optStringArray(body, 'connect'));
        if (dflt !== undefined) check([dflt]);
        core.db.transaction(() => {
          for (const n of connect) core.db.prepare('UPDATE drives SET connected = 1 WHERE name = ?').run(n);
          for (const n of disconnect) core.db.prepare('UPDATE drives SET connected = 0 WHERE name = ?').run(n);
          if (dflt !== undefined) {
            core.db.prepare('UPDATE drives SET is_default = 0').run();
            core.db.prepare('UPDATE drives SET is_default = 1, connected = 1 WHERE name = ?').run(dflt);
          }
        })();
        sendJson(res, 200, { drives: core.drives.all().map((d) => ({ name: d.name, kind: d.kind, connected: !!d.connected, default: !!d.is_default })) });
      },
    },
  ];
}

function markReviewed(d: ResultDocument, user: string, timestamp: string): void {
  d.review_completed = true;
  for (const f of d.fields) {
    if (f.validations && !f.validations.valid) {
      f.edit_history = [...(f.edit_history ?? []), { timestamp, user_id: user, modifications: [{ message: 'accepted in review' }] }];
    }
  }
}
