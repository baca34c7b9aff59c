import { readFileSync } from 'node:fs';

/** One account of the sandbox. `workspaces` are the shared workspaces the user is a member of. */
export interface SandboxUser {
  token: string;
  username: string;
  email: string;
  orgAdmin: boolean;
  auditLogs: boolean;
  serviceAccount: boolean;
  workspaces: string[];
}

export interface UsersConfig {
  org: string;
  users: SandboxUser[];
}

export const DEFAULT_USERS: UsersConfig = {
  org: 'sandbox-org',
  users: [
    { token: 'admin-token', username: 'admin', email: 'admin@sandbox.test', orgAdmin: true, auditLogs: true, serviceAccount: false, workspaces: ['team'] },
    { token: 'member-token', username: 'member', email: 'member@sandbox.test', orgAdmin: false, auditLogs: false, serviceAccount: false, workspaces: ['team'] },
    { token: 'service-token', username: 'service', email: 'service@sandbox.test', orgAdmin: false, auditLogs: false, serviceAccount: true, workspaces: ['team'] },
  ],
};

/** A personal workspace is named after its user; service accounts have none (spec 5.3). */
export function personalWorkspace(user: SandboxUser): string | null {
  return user.serviceAccount ? null : `personal-${user.username}`;
}

/** Org admins see every workspace of the org; others their own memberships and personal workspace. */
export function canAccessWorkspace(user: SandboxUser, workspace: string, allWorkspaces: ReadonlySet<string>): boolean {
  if (user.orgAdmin) return allWorkspaces.has(workspace) || workspace === personalWorkspace(user);
  return workspace === personalWorkspace(user) || user.workspaces.includes(workspace);
}

export function allWorkspaces(cfg: UsersConfig): Set<string> {
  const set = new Set<string>();
  for (const u of cfg.users) {
    const p = personalWorkspace(u);
    if (p) set.add(p);
    for (const w of u.workspaces) set.add(w);
  }
  return set;
}

/** Reads a users file (JSON of UsersConfig); every field is checked so a typo fails at start, not at the first call. */
export function loadUsersFile(path: string): UsersConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`users file ${path}: ${(err as Error).message}`);
  }
  const cfg = raw as Partial<UsersConfig>;
  if (typeof cfg.org !== 'string' || !cfg.org) throw new Error(`users file ${path}: "org" must be a non-empty string`);
  if (!Array.isArray(cfg.users) || cfg.users.length === 0) throw new Error(`users file ${path}: "users" must be a non-empty array`);
  const tokens = new Set<string>();
  const users = cfg.users.map((u: Partial<SandboxUser>, i): SandboxUser => {
    const where = `users file ${path}: users[${i}]`;
    if (typeof u.token !== 'string' || !u.token) throw new Error(`${where}.token must be a non-empty string`);
    if (tokens.has(u.token)) throw new Error(`${where}.token is used twice`);
    tokens.add(u.token);
    if (typeof u.username !== 'string' || !u.username) throw new Error(`${where}.username must be a non-empty string`);
    return {
      token: u.token,
      username: u.username,
      email: typeof u.email === 'string' ? u.email : `${u.username}@sandbox.test`,
      orgAdmin: u.orgAdmin === true,
      auditLogs: u.auditLogs === true,
      serviceAccount: u.serviceAccount === true,
      workspaces: Array.isArray(u.workspaces) ? u.workspaces.filter((w): w is string => typeof w === 'string') : [],
    };
  });
  return { org: cfg.org, users };
}
