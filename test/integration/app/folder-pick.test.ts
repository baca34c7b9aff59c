// The desktop app's folder picker behind the `folders.pick` channel. The native dialog itself is
// mocked (a pickFolder hook standing in for electron/main/hooks.ts's dialog.showOpenDialog), because
// Electron cannot run here; what surrounds it is real: the contract's check, the handler, the AppCore.
import { afterEach, describe, expect, it } from 'vitest';

import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';

let env: CoreEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('folders.pick', () => {
  it('answers the chosen folder, null when the dialog is cancelled', async () => {
    const answers: (string | null)[] = ['/chosen/scans', null];
    env = await coreEnv({ hooks: { host: 'electron', pickFolder: async () => answers.shift() ?? null } });
    expect(await env.call('folders.pick', {})).toEqual({ path: '/chosen/scans' });
    expect(await env.call('folders.pick', {})).toEqual({ path: null });
    await expect(env.core.call('folders.pick', { path: '/x' })).rejects.toThrow(/folders\.pick/);
  });

  it('a host without a picker (the browser, docsync serve) answers null: the path stays a typed field', async () => {
    env = await coreEnv();
    expect(await env.call('folders.pick', {})).toEqual({ path: null });
  });
});
