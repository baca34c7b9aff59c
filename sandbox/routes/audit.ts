import { AUDIT_LOG_TYPES, type AuditLogEntry, type AuditLogType } from '../../shared/service/audit.js';
import type { SandboxCore } from '../core.js';
import { readJson, sendJson } from '../http/io.js';
import type { Route } from '../http/router.js';

interface AuditRow {
  ts_ms: number;
  email: string;
  user_ip: string;
  log_type: AuditLogType;
  method: string;
  path: string;
  status: number;
}

export function recordAudit(core: SandboxCore, row: AuditRow): void {
  core.db
    .prepare('INSERT INTO audit (ts_ms, email, user_ip, log_type, method, path, status) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(row.ts_ms, row.email, row.user_ip, row.log_type, row.method, row.path, row.status);
}

/** v1 answers failures in its own envelope (service-shapes.md); the status still says what went wrong. */
function v1Error(status: number, msg: string): { status: number; body: Record<string, unknown> } {
  return { status, body: { status: 'ERROR', msg, message: msg } };
}

function epochMs(v: unknown, key: string): number | undefined | { error: string } {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : typeof v === 'number' && Number.isInteger(v) ? v : NaN;
  return Number.isFinite(n) ? n : { error: `"${key}" must be epoch milliseconds (a string of digits)` };
}

function intOrNull(v: unknown, key: string): number | undefined | { error: string } {
  if (v === undefined || v === null) return undefined;
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : { error: `"${key}" must be a non-negative integer` };
}

export function auditRoutes(core: SandboxCore): Route[] {
  return [
    {
      method: 'POST', pattern: '/v1/auditlogs', logType: 'account_v2', auth: 'v1',
      async handler({ req, res, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes, { optional: true });
        const fail = (status: number, msg: string): void => {
          const e = v1Error(status, msg);
          sendJson(res, e.status, e.body);
        };
        if (!user.auditLogs) return fail(403, 'audit logs need the audit-log access permission');
        const start = intOrNull(body.start, 'start');
        const size = intOrNull(body.size, 'size');
        const from = epochMs(body.start_time, 'start_time');
        const to = epochMs(body.end_time, 'end_time');
        for (const v of [start, size, from, to]) if (typeof v === 'object') return fail(400, v.error);
        const logType = body.log_type ?? null;
        if (logType !== null && (typeof logType !== 'string' || !(AUDIT_LOG_TYPES as readonly string[]).includes(logType))) {
          return fail(400, `"log_type" must be one of ${AUDIT_LOG_TYPES.join(', ')}`);
        }
        const email = body.email ?? null;
        if (email !== null && typeof email !== 'string') return fail(400, '"email" must be a string');
        const where: string[] = [];
        const args: (string | number)[] = [];
        if (logType) (where.push('log_type = ?'), args.push(logType));
        if (email) (where.push('email = ?'), args.push(email));
        if (typeof from === 'number') (where.push('ts_ms >= ?'), args.push(from));
        if (typeof to === 'number') (where.push('ts_ms <= ?'), args.push(to));
        const sql = `SELECT * FROM audit ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ? OFFSET ?`;
        const rows = core.db.prepare(sql).all(...args, typeof size === 'number' ? size : 100, typeof start === 'number' ? start : 0) as AuditRow[];
        const results: AuditLogEntry[] = rows.map((r) => ({
          timestamp_millis: String(r.ts_ms),
          email: r.email,
          user_ip: r.user_ip,
          log_type: r.log_type,
          method: r.method,
          path: r.path,
          status: r.status,
          org: core.users.org,
        }));
        sendJson(res, 200, { status: 'OK', data: { results } });
      },
    },
  ];
}
