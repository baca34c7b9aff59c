/** Audit logs (spec 4.9): POST /v1/auditlogs, Authorization only (no context header). */
import { parseAuditLogs, type AuditLogEntry, type AuditLogQuery } from '../../../shared/service/index.js';
import { ServiceError } from './errors.js';
import type { Transport } from './http.js';
import type { CallOptions } from './jobs.js';

/**
 * One page of audit log entries (`start` and `size` page through them). A read, so it is retried
 * although it is a POST. v1 reports some failures as 200 `{status: "ERROR", msg}`: that is a
 * ServiceError of kind 'http' with status 200 and the service's `msg`.
 */
export async function auditLogs(t: Transport, q: AuditLogQuery = {}, o: CallOptions = {}): Promise<{ results: AuditLogEntry[] }> {
  const op = 'auditLogs';
  const reply = await t.call({ op, method: 'POST', path: '/v1/auditlogs', json: q, context: false, idempotent: true, ok: [200], ...o });
  const status = t.parseBody(op, reply, (raw) => (raw && typeof raw === 'object' ? (raw as Record<string, unknown>).status : undefined));
  if (typeof status === 'string' && status.toUpperCase() === 'ERROR') {
    const body = JSON.parse(reply.text) as Record<string, unknown>;
    const msg = typeof body.msg === 'string' ? body.msg : typeof body.message === 'string' ? body.message : 'the service reported an error';
    throw new ServiceError({ kind: 'http', operation: op, status: reply.status, message: t.redact(msg) });
  }
  return t.parseBody(op, reply, parseAuditLogs);
}
