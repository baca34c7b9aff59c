/**
 * A shared folder's records come through the service, written by other agents (issue 26, item 3): a
 * batch record naming `../secret.pdf` must not bring a file from outside the hot folder into this
 * agent's store (it would be uploaded, then archived or deleted). Real folders, a real SQLite store.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { pipelineContext, type EngineEvents } from '../../../../electron/engine/pipeline/context.js';
import { importTakeovers } from '../../../../electron/engine/pipeline/share-takeover.js';
import type { Share, ShareBatchFile } from '../../../../electron/engine/share/api.js';
import { openStore, STORE_FILE, type Store } from '../../../../electron/engine/store/index.js';

let root: string | undefined;
let store: Store | undefined;
afterEach(async () => {
  store?.close();
  store = undefined;
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

const sha = (b: string): string => createHash('sha256').update(b).digest('hex');
const member = (rel: string, text: string): ShareBatchFile => ({ sha256: sha(text), rel, safeName: 'x.pdf', size: text.length, mtimeMs: 1, uploaded: false });

it('a taken-over batch whose record names files outside the hot folder takes only those inside; the others are left alone and said so', async () => {
  root = await mkdtemp(join(tmpdir(), 'docsync-share-names-'));
  const inbox = join(root, 'inbox');
  await mkdir(join(inbox, 'sub'), { recursive: true });
  await writeFile(join(root, 'secret.pdf'), 'SECRET');
  await writeFile(join(inbox, 'sub', 'ok.pdf'), 'OK');
  store = openStore(join(root, 'home', STORE_FILE));
  const folder = store.folders.add({ path: inbox, deploymentId: 'd1' });
  const logs: EngineEvents['log'][0][] = [];
  const ctx = pipelineContext({ store, client: undefined as never, home: join(root, 'home'), serviceId: 1 }, (event, ...args) => {
    if (event === 'log') logs.push(args[0] as EngineEvents['log'][0]);
  });
  const released: string[] = [];
  const share = { release: async (s: string) => void released.push(s), unwatch: () => undefined } as unknown as Share;
  const enqueued: number[] = [];
  const host = { plan: () => undefined, unplan: () => undefined, enqueue: (id: number) => void enqueued.push(id) };
  const hostile = ['../secret.pdf', 'sub/../../secret.pdf', '/etc/hostname', 'sub//ok.pdf'];
  const files = [...hostile.map((rel) => member(rel, 'SECRET')), member('sub/ok.pdf', 'OK')];

  const lines = await importTakeovers(ctx, host, folder, share, [
    { kind: 'batch', record: { name: 'b-1', plan: '{}', serviceBatchId: null, servicePath: null, files, run: null }, dropped: [] },
    { kind: 'content', sha256: sha('SECRET'), rel: '../secret.pdf' },
  ], () => undefined);

  expect(lines[0]).toMatch(/^Batch b-1: its agent stopped; this one takes it over/);
  expect(store.files.list().map((f) => f.path)).toEqual([join(inbox, 'sub', 'ok.pdf')]);
  expect(store.files.list()[0]?.batchId).toBe(enqueued[0]);
  const warned = logs.filter((l) => l.level === 'warn').map((l) => l.msg);
  expect(warned).toHaveLength(hostile.length + 1);
  for (const w of warned) expect(w).toMatch(/^The shared folder's records name a file that is not inside the folder \(".*"\); DocSync does not take it\. It was recorded by another agent/);
  expect(released.filter((s) => s === sha('SECRET')).length).toBeGreaterThan(0);
  expect(await readFile(join(root, 'secret.pdf'), 'utf8')).toBe('SECRET');
});
