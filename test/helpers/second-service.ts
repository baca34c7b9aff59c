import { DEFAULT_USERS, type RunningSandbox, type SandboxOptions } from '../../sandbox/index.js';
import { caller, sandbox } from './sandbox.js';

/** The only token the second service accepts; the first (any default sandbox) refuses it, and it refuses theirs. */
export const B_TOKEN = 'b-token';

/**
 * A second, independent service (stands in for the real one after the built-in sandbox): another
 * sandbox whose one user has its own token, so a call sent to the wrong service with the other's
 * token is refused (401) instead of quietly working. Same user name, so the same workspace paths:
 * batch 1's files have the same service paths on both, as they would.
 */
export function secondSandbox(opts: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  const admin = DEFAULT_USERS.users[0]!;
  return sandbox({ users: { org: DEFAULT_USERS.org, users: [{ ...admin, token: B_TOKEN }] }, ...opts });
}

/** The names of the batches a service holds, as its owner lists them. */
export async function batchNames(sb: { url: string }, token: string): Promise<string[]> {
  const res = await caller(sb.url, token)<{ batches: { id: number; name?: string }[] }>('GET', '/v2/batches?limit=500');
  if (res.status !== 200) throw new Error(`listing batches on ${sb.url}: ${res.status} ${res.text}`);
  return res.body.batches.map((b) => b.name ?? `#${b.id}`).sort();
}
