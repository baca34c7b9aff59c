/**
 * The sandbox as DocSync's hosts start it ("Try the sandbox", `docsync serve` with no service): on
 * a free port, with the full-access token and the ids of its deployments (offered in the pickers).
 */
import { DEPLOYMENTS } from './catalog.js';
import type { SandboxOptions } from './options.js';
import { startSandbox } from './server.js';
import { DEFAULT_USERS } from './users.js';

export interface BuiltInSandbox {
  url: string;
  token: string;
  deployments: string[];
  close(): Promise<void>;
}

export async function startBuiltInSandbox(opts: Partial<SandboxOptions> = {}): Promise<BuiltInSandbox> {
  const sb = await startSandbox({ port: 0, ...opts });
  const admin = DEFAULT_USERS.users.find((u) => u.orgAdmin && !u.serviceAccount);
  if (!admin) throw new Error('the sandbox has no full-access user');
  return { url: sb.url, token: admin.token, deployments: DEPLOYMENTS.map((d) => d.id), close: () => sb.close() };
}
