import type { SandboxCore } from '../core.js';
import { notFound } from '../http/errors.js';
import { sendJson } from '../http/io.js';
import type { RequestContext, Route } from '../http/router.js';

/** Both job paths answer the same (spec 9.2). */
export function jobStatusHandler(core: SandboxCore) {
  return ({ res, params }: RequestContext): void => {
    const job = core.jobs.get(params.job_id as string);
    if (!job) throw notFound(`job ${params.job_id} not found`);
    sendJson(res, 200, { state: job.state, message: job.message });
  };
}

export function jobRoutes(core: SandboxCore): Route[] {
  return [{ method: 'GET', pattern: '/v2/jobs/:job_id', logType: 'api_v2', auth: 'v2', handler: jobStatusHandler(core) }];
}
