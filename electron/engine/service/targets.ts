/**
 * Does a deployment or an app exist? The API has no call that lists or reads one (spec 4.3b, 4.4),
 * so the run endpoint is asked with no input at all: the service must refuse that (400: batch_id or
 * input_dir is required) and can start nothing, and it answers 404 for a deployment or app it does
 * not know. Any other answer leaves the question open (undefined), so a caller never refuses a
 * target that may exist.
 */
import type { FolderTarget } from '../../../shared/hot-folder.js';
import { deadline } from './deadline.js';
import { isServiceError } from './errors.js';
import { seg, type Transport } from './http.js';
import type { CallOptions } from './jobs.js';

export async function targetExists(t: Transport, target: FolderTarget, o: CallOptions = {}): Promise<boolean | undefined> {
  const call = target.type === 'deployment'
    ? { op: 'checkDeployment', path: `/v2/apps/deployments/${seg(target.id)}/runs`, json: {} }
    : { op: 'checkApp', path: '/v2/apps/runs', json: { app_id: target.id } };
  try {
    // Not idempotent in the API's terms, although this body cannot start a run: never repeated after sending.
    const reply = await t.call({ ...call, method: 'POST', idempotent: false, ok: [400, 404], ...o });
    return reply.status === 400;
  } catch (e) {
    if (isServiceError(e) && e.kind !== 'aborted') return undefined;
    throw e;
  }
}

/** How long a caller waits for the service to say whether a deployment or app exists. */
export const TARGET_CHECK_MS = 15_000;

/** What a person reads when the service says a target does not exist. */
export const unknownTarget = (target: FolderTarget, baseUrl: string): string => `no ${target.type} "${target.id}" on ${baseUrl}`;

/**
 * targetExists, bounded: an unreachable service must not hold a person's action for the whole retry
 * policy, and any failure to ask is "not checked" (undefined), never a refusal. `signal` (a stop) still aborts.
 */
export async function checkTarget(client: { targetExists(t: FolderTarget, o?: CallOptions): Promise<boolean | undefined> }, target: FolderTarget, signal?: AbortSignal): Promise<boolean | undefined> {
  const bounded = deadline(TARGET_CHECK_MS, signal);
  return client.targetExists(target, { signal: bounded.signal }).catch((e: unknown) => (signal?.aborted ? Promise.reject(e) : undefined)).finally(bounded.clear);
}
