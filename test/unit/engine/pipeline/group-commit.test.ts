// Group commit (issue 14): writes asked for in the same turn share one transaction, and each caller
// hears back only once it is committed. A real SQLite file; a second connection plays another
// reader (the UI's process, or the state after a crash): what it sees is what was committed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pipelineContext, setState, storeState, type PipelineContext } from '../../../../electron/engine/pipeline/context.js';
import type { ServiceClient } from '../../../../electron/engine/service/index.js';
import { openStore, STORE_FILE, type Store } from '../../../../electron/engine/store/index.js';

let dir: string;
let store: Store;
let other: Database.Database;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docsync-group-'));
  store = openStore(join(dir, STORE_FILE));
  other = new Database(join(dir, STORE_FILE), { readonly: true });
});
afterEach(async () => {
  other.close();
  store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The state another connection sees: only what is committed. */
const committedState = (id: number): string | undefined => (other.prepare('SELECT state FROM files WHERE id = ?').get(id) as { state: string } | undefined)?.state;
const committedEvents = (id: number): number => (other.prepare('SELECT count(*) AS n FROM file_events WHERE file_id = ?').get(id) as { n: number }).n;

function context(events: { state: string; seenByOther: string | undefined }[]): PipelineContext {
  return pipelineContext(
    { store, client: undefined as unknown as ServiceClient, home: dir, serviceId: store.services.ensure({ url: 'http://127.0.0.1:1' }).id },
    (event, ...args) => {
      if (event !== 'file') return;
      const { file } = args[0] as { file: { id: number; state: string } };
      events.push({ state: file.state, seenByOther: committedState(file.id) });
    },
  );
}

const addFile = (name: string) => store.files.add({ path: join(dir, name), size: 1, mtimeMs: 1, originalName: name, state: 'queued' });

describe('group commit', () => {
  it('writes of one turn go into one transaction, committed before any caller resumes', async () => {
    const ctx = context([]);
    const ids = [addFile('a.pdf').id, addFile('b.pdf').id, addFile('c.pdf').id];
    const inside: boolean[] = [];
    const seenDuring: (string | undefined)[] = [];
    const writes = ids.map((id, i) =>
      ctx.commit(() => {
        inside.push(store.db.inTransaction);
        setState(ctx, id, 'uploading');
        // The earlier writes of the group are not committed yet: another connection still sees them queued.
        if (i === ids.length - 1) for (const x of ids) seenDuring.push(committedState(x));
        return id;
      }),
    );
    expect(ids.map(committedState)).toEqual(['queued', 'queued', 'queued']); // nothing runs before the turn ends
    expect(await Promise.all(writes)).toEqual(ids);
    expect(inside).toEqual([true, true, true]);
    expect(seenDuring).toEqual(['queued', 'queued', 'queued']);
    expect(ids.map(committedState)).toEqual(['uploading', 'uploading', 'uploading']);
    for (const id of ids) expect(committedEvents(id)).toBe(2); // each with its own history row
  });

  it('a file resumes only once its state is stored, and its event is sent only after the commit', async () => {
    const events: { state: string; seenByOther: string | undefined }[] = [];
    const ctx = context(events);
    const id = addFile('a.pdf').id;
    const resumed = storeState(ctx, id, 'uploading').then((f) => ({ f, seen: committedState(id) }));
    expect(events).toEqual([]);
    const { f, seen } = await resumed;
    expect(f.state).toBe('uploading');
    expect(seen).toBe('uploading');
    expect(events).toEqual([{ state: 'uploading', seenByOther: 'uploading' }]);
  });

  it('a write that throws is undone alone: its caller gets the error, the others of the group are stored', async () => {
    const events: { state: string; seenByOther: string | undefined }[] = [];
    const ctx = context(events);
    const a = addFile('a.pdf').id;
    const b = addFile('b.pdf').id;
    const ok = storeState(ctx, a, 'uploading');
    const bad = ctx.commit(() => {
      setState(ctx, b, 'uploading');
      throw new Error('refused');
    });
    const missing = storeState(ctx, 999_999, 'uploading');
    await expect(bad).rejects.toThrow('refused');
    await expect(missing).rejects.toThrow(/no file with id 999999/);
    expect((await ok).state).toBe('uploading');
    expect(committedState(a)).toBe('uploading');
    // The group ran once whole, was rolled back, and ran again write by write: a's change is stored once.
    expect(committedEvents(a)).toBe(2);
    expect(committedState(b)).toBe('queued');
    expect(committedEvents(b)).toBe(1);
    // Only the stored change was announced.
    expect(events).toEqual([{ state: 'uploading', seenByOther: 'uploading' }]);
  });

  it('when the commit itself fails, every caller of the group is told and nothing is announced', async () => {
    const events: { state: string; seenByOther: string | undefined }[] = [];
    const ctx = context(events);
    const a = addFile('a.pdf').id;
    // Another connection holds the write lock past the store's busy timeout: BEGIN IMMEDIATE fails.
    store.db.pragma('busy_timeout = 50');
    const writer = new Database(join(dir, STORE_FILE));
    writer.prepare('BEGIN IMMEDIATE').run();
    try {
      await expect(storeState(ctx, a, 'uploading')).rejects.toThrow(/locked|busy/i);
    } finally {
      writer.prepare('ROLLBACK').run();
      writer.close();
    }
    expect(committedState(a)).toBe('queued');
    expect(events).toEqual([]);
    // The next group works again.
    expect((await storeState(ctx, a, 'uploading')).state).toBe('uploading');
  });
});
