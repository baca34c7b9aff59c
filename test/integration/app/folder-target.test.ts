// A mistyped deployment is caught when the folder is added (issue 12), not 12 s later after the
// upload; offline the folder is taken at once and shows "not checked yet" until a run proves it.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { builtInUsers, coreEnv, type CoreEnv } from '../../helpers/app-core.js';
import { FAST_FOLDER } from '../../helpers/engine.js';
import { numberedInvoice } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { waitUntil } from '../../helpers/wait.js';

let env: CoreEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('a hot folder\'s deployment is checked with the service', () => {
  it('a mistyped id is refused in words and nothing is added; a right one is added, checked', async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    const inbox = join(e.root, 'inbox');
    await mkdir(inbox, { recursive: true });
    await expect(e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoicez' } })).rejects.toThrow(/^no deployment "sandbox-invoicez" on http:\/\/127\.0\.0\.1:\d+$/);
    expect(await e.call('folders.list', {})).toEqual([]);
    const added = await e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER } });
    expect(added.targetUnchecked).toBe(false);
    // Changing it to a mistyped one is refused too, and the folder keeps its deployment.
    await expect(e.call('folders.update', { id: added.id, settings: { path: inbox, deployment: 'nope' } })).rejects.toThrow(/no deployment "nope"/);
    expect((await e.call('folders.list', {}))[0]?.settings.target).toEqual({ type: 'deployment', id: 'sandbox-invoices' });
  });

  it('offline: added at once, "not checked yet" until the service is back and a run of that deployment starts', async () => {
    env = await coreEnv();
    const e = env;
    await e.call('connection.trySandbox', {});
    const sb = e.sandboxes[0]!;
    const port = new URL(sb.url).port;
    await sb.close();
    await waitUntil(() => e.core.connection.kind === 'offline', 'offline');
    const inbox = join(e.root, 'inbox');
    await mkdir(inbox, { recursive: true });
    const added = await e.call('folders.add', { settings: { path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER } });
    expect(added.targetUnchecked).toBe(true);
    // Back on the same address: a file goes through, and its run proves the deployment.
    const back = await sandbox({ port: Number(port), users: builtInUsers(sb.token) });
    try {
      await writeFile(join(inbox, 'inv-1.pdf'), await numberedInvoice(1));
      await waitUntil(() => e.core.store.files.countByState().done === 1, 'the file is done', 30_000);
      expect((await e.call('folders.list', {}))[0]?.targetUnchecked).toBe(false);
    } finally {
      await back.close();
    }
  });
});
