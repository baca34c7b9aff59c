// Many files dropped into a hot folder at once (issue 4, "Pipeline"): they are hashed and taken in a
// few at a time, not all at once (each open file costs a descriptor and a read buffer: 10,000 files
// ran into gigabytes of buffers), and a stop does not first hash every file still waiting.
// Linux only: open descriptors are read from /proc/self/fd, where this project's tests run.
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../electron/engine/engine.js';
import { engineEnv, FAST_FOLDER, type EngineEnv } from '../../helpers/engine.js';
import { waitUntil } from '../../helpers/wait.js';
import { SMALL_MAX } from '../../../electron/engine/pipeline/file-worker.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** `count` files of `size` bytes, different contents, written beside the inbox and then moved in at once. */
async function dropMany(e: EngineEnv, inbox: string, count: number, size: number): Promise<void> {
  const staging = e.dir('staging');
  await mkdir(staging, { recursive: true });
  for (let i = 0; i < count; i++) await writeFile(join(staging, `scan-${i}.txt`), `INVOICE\nInvoice Number: INV-${i}\n`.padEnd(size, '.'));
  await Promise.all(Array.from({ length: count }, (_, i) => rename(join(staging, `scan-${i}.txt`), join(inbox, `scan-${i}.txt`))));
}

/**
 * Descriptors this process has open on files inside `dir`. Synchronous on purpose: an async read
 * of /proc would queue behind the very file operations it is counting.
 */
function openIn(dir: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dir}/`)) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

async function pausedHotFolder(): Promise<{ e: EngineEnv; inbox: string }> {
  env = await engineEnv();
  const inbox = env.dir('inbox');
  await mkdir(inbox, { recursive: true });
  await env.engine.start();
  // Paused: nothing is uploaded, so every file open in the inbox is one being hashed.
  env.engine.pause();
  await env.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...FAST_FOLDER, batching: { ...FAST_FOLDER.batching, maxFiles: 1000 } });
  return { e: env, inbox };
}

describe('many files at once', () => {
  // Small files are hashed in the file worker, one after the other (file-worker.ts); larger ones here,
  // each holding one of the engine's 32 intake slots.
  it.each([
    { count: 600, size: 256 * 1024, most: 1, how: 'small: hashed one at a time in the file worker' },
    { count: 80, size: SMALL_MAX + 1, most: 32, how: 'large: at most 32 open at any moment' },
  ])('$count files dropped together are all taken in ($how)', async ({ count, size, most: bound }) => {
    const { e, inbox } = await pausedHotFolder();
    await dropMany(e, inbox, count, size);
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, openIn(inbox))), 1);
    try {
      await waitUntil(() => e.engine.store.files.countByState().queued === count, `all ${count} files queued`, 60_000);
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(bound);
  }, 90_000);

  it('a stop while 2,000 files wait to be taken in returns without hashing the rest; nothing is lost, a restart finds them', async () => {
    const { e, inbox } = await pausedHotFolder();
    await dropMany(e, inbox, 2000, 64 * 1024);
    await waitUntil(() => e.engine.store.files.list().length > 0, 'the first file taken in', 30_000);
    await e.engine.stop();
    const taken = e.engine.store.files.list().length;
    expect(taken).toBeLessThan(2000);
    // The files are still in the inbox, untouched, for the next start's first scan.
    expect((await readdir(inbox)).length).toBe(2000);

    const again = new Engine({ store: e.engine.store, client: e.engine.client, home: e.home, poll: { initialMs: 50, maxMs: 200 } });
    await again.start();
    again.pause();
    try {
      await waitUntil(() => e.engine.store.files.countByState().queued === 2000, 'all 2,000 files queued after the restart', 60_000);
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('removing the folder while 2,000 files wait to be taken in: the rest are left, no errors, no rows for the removed folder appear after', async () => {
    const { e, inbox } = await pausedHotFolder();
    const errors: string[] = [];
    e.engine.on('log', ({ level, msg }) => {
      if (level === 'error') errors.push(msg);
    });
    await dropMany(e, inbox, 2000, 64 * 1024);
    await waitUntil(() => e.engine.store.files.list().length > 0, 'the first file taken in', 30_000);
    await e.engine.removeFolder(inbox);
    const afterRemove = e.engine.store.files.list().length;
    await new Promise((r) => setTimeout(r, 500));
    expect(e.engine.store.files.list().length).toBe(afterRemove);
    expect(afterRemove).toBeLessThan(2000);
    expect(errors.join(' | ')).toBe('');
  }, 90_000);
});
