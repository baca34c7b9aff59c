import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppCore } from '../../electron/engine/app/core.js';
import type { HostHooks } from '../../electron/engine/app/host-hooks.js';
import { MemoryStore, type CredentialStore } from '../../electron/engine/config/credentials.js';
import { DEFAULT_USERS, startBuiltInSandbox, type BuiltInSandbox, type UsersConfig } from '../../sandbox/index.js';
import type { Args, RequestChannel, Results } from '../../shared/ui/contract.js';
import { FAST } from './sandbox.js';

export interface CoreEnv {
  core: AppCore;
  home: string;
  root: string;
  /** Every sandbox "Try the sandbox" started (tests stop it to go offline). */
  sandboxes: BuiltInSandbox[];
  call<C extends RequestChannel>(channel: C, args: Args<C>): Promise<Results[C]>;
  close(): Promise<void>;
}

/**
 * A real AppCore on a temp data home: real store, real engine, real sandbox for "Try the sandbox",
 * short poll and probe delays. Credentials default to the in-memory store (the keychain has its own tests).
 */
export async function coreEnv(o: { credentials?: CredentialStore; hooks?: Partial<HostHooks> } = {}): Promise<CoreEnv> {
  const root = await mkdtemp(join(tmpdir(), 'docsync-core-'));
  const home = join(root, 'home');
  const sandboxes: BuiltInSandbox[] = [];
  const core = new AppCore({
    host: 'headless', home, version: 'test', credentials: o.credentials ?? new MemoryStore(), env: {},
    startSandbox: async () => {
      const sb = await startBuiltInSandbox(FAST);
      sandboxes.push(sb);
      return sb;
    },
    engine: { poll: { initialMs: 50, maxMs: 200, reviewMs: 200 }, retry: { initialMs: 50, maxMs: 500 } },
    probeMs: { online: 500, offline: 200 },
    ...o.hooks,
  });
  await core.start();
  return {
    core, home, root, sandboxes,
    call: (channel, args) => core.call(channel, args) as Promise<Results[typeof channel]>,
    async close() {
      await core.stop();
      for (const sb of sandboxes) await sb.close().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The built-in sandbox's users, for a sandbox started again in its place: its full-access user keeps `token`. */
export function builtInUsers(token: string): UsersConfig {
  return { org: DEFAULT_USERS.org, users: DEFAULT_USERS.users.map((u) => (u.orgAdmin && !u.serviceAccount ? { ...u, token } : u)) };
}
