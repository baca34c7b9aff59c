/**
 * The sandbox as DocSync's hosts start it ("Try the sandbox", `docsync serve` with no service): on
 * a free port, with the ids of its deployments (offered in the pickers), and one full-access user
 * whose token is made at random for its state folder and kept there for its owner alone (issue 26).
 * The documented test tokens (admin-token, ...) are not accepted: any local account can find the
 * port, and people drop their own scans into it. `docsync sandbox` still runs with those tokens.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEPLOYMENTS } from './catalog.js';
import type { SandboxOptions } from './options.js';
import { startSandbox } from './server.js';
import { DEFAULT_USERS, type UsersConfig } from './users.js';

export interface BuiltInSandbox {
  url: string;
  token: string;
  deployments: string[];
  close(): Promise<void>;
}

/** File in the state folder that keeps its token. */
export const TOKEN_FILE = 'access-token';

/** The state folder's token: read when there, else made and written 0600 (the folder 0700). */
function tokenOf(dataDir: string | undefined): string {
  if (!dataDir) return randomBytes(24).toString('base64url');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const file = join(dataDir, TOKEN_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (/^[A-Za-z0-9_-]{32,}$/.test(kept)) {
      chmodSync(file, 0o600);
      return kept;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

export async function startBuiltInSandbox(opts: Partial<SandboxOptions> = {}): Promise<BuiltInSandbox> {
  const admin = DEFAULT_USERS.users.find((u) => u.orgAdmin && !u.serviceAccount);
  if (!admin) throw new Error('the sandbox has no full-access user');
  // The same user as before (runs and results made with admin-token stay its), under its own token.
  const users: UsersConfig = opts.users ?? { org: DEFAULT_USERS.org, users: [{ ...admin, token: tokenOf(opts.dataDir) }] };
  const sb = await startSandbox({ port: 0, ...opts, users });
  const token = users.users.find((u) => u.orgAdmin && !u.serviceAccount)?.token ?? admin.token;
  return { url: sb.url, token, deployments: DEPLOYMENTS.map((d) => d.id), close: () => sb.close() };
}
