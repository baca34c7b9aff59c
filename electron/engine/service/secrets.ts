/** Organization secrets (spec 4.7) under /v2/{namespace}/secrets; the namespace is configurable. */
import {
  parseSecretList, type CreateSecretRequest, type SecretRecordView, type UpdateSecretRequest,
} from '../../../shared/service/index.js';
import { isServiceError } from './errors.js';
import type { Transport } from './http.js';
import type { CallOptions } from './jobs.js';

const path = (t: Transport): string => `/v2/${encodeURIComponent(t.cfg.namespace)}/secrets`;

/**
 * POST /v2/{ns}/secrets. Not idempotent: after an ambiguous failure the alias is looked up and a
 * secret created by this user since the call began is adopted; otherwise kind 'ambiguous'.
 */
export async function createSecret(t: Transport, req: CreateSecretRequest, o: CallOptions = {}): Promise<{ recovered: boolean }> {
  const began = Date.now();
  try {
    await t.call({ op: 'createSecret', method: 'POST', path: path(t), json: req, idempotent: false, ok: [200, 201, 204], ...o });
    return { recovered: false };
  } catch (e) {
    if (!isServiceError(e, 'ambiguous')) throw e;
    const since = began - t.cfg.clockSkewMs;
    const user = t.cfg.username;
    await t.settleAmbiguous(
      e,
      async () => (await listSecrets(t, { alias: req.alias }, o)).secrets.filter((s) => s.alias === req.alias && s.created_at >= since && (!user || s.created_by === user)),
      { what: `secret "${req.alias}"${user ? ` created by ${user}` : ''} since ${new Date(since).toISOString()}`, ids: (l) => l.map((s) => s.alias).join(', ') },
      o.signal,
    );
    return { recovered: true };
  }
}

/** GET /v2/{ns}/secrets. Non-admins must give a workspace. */
export function listSecrets(t: Transport, q: { workspace?: string; alias?: string } = {}, o: CallOptions = {}): Promise<{ secrets: SecretRecordView[] }> {
  return t.json({ op: 'listSecrets', method: 'GET', path: path(t), query: { ...q }, idempotent: true, ok: [200], ...o }, parseSecretList);
}

/** PATCH /v2/{ns}/secrets: unspecified fields stay unchanged (so repeating it is safe). */
export async function updateSecret(t: Transport, req: UpdateSecretRequest, o: CallOptions = {}): Promise<void> {
  await t.call({ op: 'updateSecret', method: 'PATCH', path: path(t), json: req, idempotent: true, ok: [200, 204], ...o });
}

/** DELETE /v2/{ns}/secrets {alias}. */
export async function deleteSecret(t: Transport, alias: string, o: CallOptions = {}): Promise<void> {
  try {
    await t.call({ op: 'deleteSecret', method: 'DELETE', path: path(t), json: { alias }, idempotent: true, ok: [200, 202, 204], ...o });
  } catch (e) {
    // A repeat of a delete that did happen finds nothing to delete: done.
    if (isServiceError(e, 'http') && e.status === 404 && e.mayHaveTakenEffect) return;
    throw e;
  }
}
