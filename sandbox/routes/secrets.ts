import { WORKSPACE_SCOPES, type SecretRecord, type WorkspaceScope } from '../../shared/service/secrets.js';
import type { SandboxCore } from '../core.js';
import { HttpError, badRequest, forbidden, notFound } from '../http/errors.js';
import { readJson, sendEmpty, sendJson } from '../http/io.js';
import type { Route } from '../http/router.js';
import { oneOf, optString, optStringArray, reqString } from '../http/validate.js';
import type { SandboxUser } from '../users.js';

interface SecretRow {
  alias: string;
  description: string;
  value: string;
  scope: WorkspaceScope;
  workspaces: string;
  created_at: number;
  created_by: string;
  updated_at: number;
  last_updated_by: string;
}

export function secretRow(core: SandboxCore, alias: string): SecretRow | undefined {
  return core.db.prepare('SELECT * FROM secrets WHERE alias = ?').get(alias) as SecretRow | undefined;
}

/** Whether a secret may be used by runs in a workspace. */
export function secretAllowedIn(row: SecretRow, workspace: string): boolean {
  if (row.scope === 'ALL') return true;
  if (row.scope === 'NONE') return false;
  return (JSON.parse(row.workspaces) as string[]).includes(workspace);
}

function toRecord(core: SandboxCore, r: SecretRow): SecretRecord {
  return {
    alias: r.alias,
    description: r.description,
    allowed_workspaces_type: r.scope,
    allowed_workspaces: JSON.parse(r.workspaces) as string[],
    org: core.users.org,
    created_at: r.created_at,
    created_by: r.created_by,
    updated_at: r.updated_at,
    last_updated_by: r.last_updated_by,
  };
}

function requireAdmin(user: SandboxUser): void {
  if (!user.orgAdmin) throw forbidden('only organization admins can create, update or delete secrets');
}

function scopeOf(body: Record<string, unknown>, required: boolean): WorkspaceScope | undefined {
  const v = body.allowed_workspaces_type;
  if (v === undefined || v === null) {
    if (required) throw badRequest(`"allowed_workspaces_type" is required: one of ${WORKSPACE_SCOPES.join(', ')}`);
    return undefined;
  }
  if (typeof v !== 'string') throw badRequest('"allowed_workspaces_type" must be a string');
  return oneOf(v, WORKSPACE_SCOPES, '"allowed_workspaces_type"');
}

/** `allowed_workspaces` is required when the type is SOME, otherwise ignored (spec 4.7). */
function workspacesFor(core: SandboxCore, scope: WorkspaceScope, body: Record<string, unknown>, current: string[]): string[] {
  if (scope !== 'SOME') return [];
  const list = optStringArray(body, 'allowed_workspaces') ?? (body.allowed_workspaces_type === undefined ? current : undefined);
  if (!list || list.length === 0) throw badRequest('"allowed_workspaces" is required when allowed_workspaces_type is SOME');
  const unknown = list.filter((w) => !core.workspaces.has(w));
  if (unknown.length) throw badRequest(`unknown workspace(s) in "allowed_workspaces": ${unknown.join(', ')}`);
  return list;
}

export function secretRoutes(core: SandboxCore): Route[] {
  const path = `/v2/${core.opts.namespace}/secrets`;
  return [
    {
      method: 'POST', pattern: path, logType: 'org_secrets_v2', auth: 'v2',
      async handler({ req, res, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        requireAdmin(user);
        const alias = reqString(body, 'alias', 255);
        if (typeof body.value !== 'string') throw badRequest('"value" is required and must be a string');
        const description = optString(body, 'description') ?? '';
        const scope = scopeOf(body, true) as WorkspaceScope;
        const workspaces = workspacesFor(core, scope, body, []);
        if (secretRow(core, alias)) throw new HttpError(409, `a secret with alias "${alias}" already exists; use PATCH to change it`);
        const now = Date.now();
        core.db
          .prepare('INSERT INTO secrets (alias, description, value, scope, workspaces, created_at, created_by, updated_at, last_updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
          .run(alias, description, body.value, scope, JSON.stringify(workspaces), now, user.username, now, user.username);
        sendEmpty(res, 200);
      },
    },
    {
      method: 'GET', pattern: path, logType: 'org_secrets_v2', auth: 'v2',
      handler({ res, query, user }) {
        const workspace = query.get('workspace');
        const alias = query.get('alias');
        if (!workspace && !user.orgAdmin) throw forbidden('only organization admins can list all secrets; give "workspace" to list the secrets available there');
        if (workspace && !core.canAccess(user, workspace)) throw forbidden(`you are not a member of workspace "${workspace}"`);
        const rows = (core.db.prepare('SELECT * FROM secrets ORDER BY alias').all() as SecretRow[])
          .filter((r) => !workspace || secretAllowedIn(r, workspace))
          .filter((r) => !alias || r.alias === alias);
        sendJson(res, 200, { secrets: rows.map((r) => toRecord(core, r)) });
      },
    },
    {
      method: 'PATCH', pattern: path, logType: 'org_secrets_v2', auth: 'v2',
      async handler({ req, res, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        requireAdmin(user);
        const alias = reqString(body, 'alias', 255);
        const row = secretRow(core, alias);
        if (!row) throw notFound(`no secret with alias "${alias}"`);
        const description = optString(body, 'description') ?? row.description;
        if (body.value !== undefined && typeof body.value !== 'string') throw badRequest('"value" must be a string');
        const value = (body.value as string | undefined) ?? row.value;
        const scope = scopeOf(body, false) ?? row.scope;
        const workspaces = body.allowed_workspaces === undefined && scope === row.scope ? (JSON.parse(row.workspaces) as string[]) : workspacesFor(core, scope, body, JSON.parse(row.workspaces) as string[]);
        core.db
          .prepare('UPDATE secrets SET description = ?, value = ?, scope = ?, workspaces = ?, updated_at = ?, last_updated_by = ? WHERE alias = ?')
          .run(description, value, scope, JSON.stringify(workspaces), Date.now(), user.username, alias);
        sendEmpty(res, 200);
      },
    },
    {
      method: 'DELETE', pattern: path, logType: 'org_secrets_v2', auth: 'v2',
      async handler({ req, res, user }) {
        const body = await readJson(req, core.opts.maxJsonBytes);
        requireAdmin(user);
        const alias = reqString(body, 'alias', 255);
        if (!secretRow(core, alias)) throw notFound(`no secret with alias "${alias}"`);
        core.db.prepare('DELETE FROM secrets WHERE alias = ?').run(alias);
        sendEmpty(res, 200);
      },
    },
  ];
}
