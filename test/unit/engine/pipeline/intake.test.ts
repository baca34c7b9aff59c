// Taking a stable file in (engine pipeline): a real SQLite store in a temp folder and a real file.
// Two intakes of the same path can overlap (a second stable report while the first one hashes):
// one row results, and neither fails.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateFolderSettings, type HotFolderSettings } from '../../../../shared/hot-folder.js';
import { pipelineContext, type PipelineContext } from '../../../../electron/engine/pipeline/context.js';
import { intake } from '../../../../electron/engine/pipeline/intake.js';
import type { ServiceClient } from '../../../../electron/engine/service/index.js';
import { openStore, STORE_FILE, type Store } from '../../../../electron/engine/store/index.js';

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docsync-intake-'));
  store = openStore(join(dir, STORE_FILE));
});
afterEach(async () => {
  store.close();
  await rm(dir, { recursive: true, force: true });
});

function context(events: string[]): PipelineContext {
  // Intake never talks to the service: no client is needed, so none is made.
  return pipelineContext(
    { store, client: undefined as unknown as ServiceClient, home: dir, serviceId: store.services.ensure({ url: 'http://127.0.0.1:1' }).id },
    (event, ...args) => void events.push(`${event}:${JSON.stringify(args[0]).slice(0, 40)}`),
  );
}

describe('intake', () => {
  it('two overlapping intakes of one new file give one queued row; the other returns null', async () => {
    const v = validateFolderSettings({ path: dir, deployment: 'd' });
    if (!v.ok) throw new Error(v.errors.join('; '));
    const settings: HotFolderSettings = v.settings;
    const folder = store.folders.add({ path: dir, deploymentId: 'd' });
    const path = join(dir, 'scan.pdf');
    await writeFile(path, 'INVOICE 1');
    const obs = { path, rel: 'scan.pdf', size: 9, mtimeMs: Date.now() };
    const events: string[] = [];
    const [a, b] = await Promise.all([intake(context(events), folder.id, settings, obs), intake(context(events), folder.id, settings, obs)]);
    const rows = store.files.list();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.state).toBe('queued');
    expect([a, b].filter((x) => x !== null)).toHaveLength(1);
    expect([a, b].find((x) => x !== null)?.id).toBe(rows[0]!.id);
  });

  it('a file already queued in this version is not taken again', async () => {
    const v = validateFolderSettings({ path: dir, deployment: 'd' });
    if (!v.ok) throw new Error(v.errors.join('; '));
    const folder = store.folders.add({ path: dir, deploymentId: 'd' });
    const path = join(dir, 'scan.pdf');
    await writeFile(path, 'INVOICE 2');
    const obs = { path, rel: 'scan.pdf', size: 9, mtimeMs: Date.now() };
    expect(await intake(context([]), folder.id, v.settings, obs)).not.toBeNull();
    expect(await intake(context([]), folder.id, v.settings, obs)).toBeNull();
    expect(store.files.list()).toHaveLength(1);
  });
});
