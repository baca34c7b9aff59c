/**
 * Files per state kept from the event log (store/state-counts.ts), and the queue's total kept while
 * the database is unchanged (browse.queue): both must always equal a full count, whoever wrote.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../../electron/engine/store/index.js';
import { stateCounter } from '../../../../electron/engine/store/state-counts.js';
import { tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
let s: Store;
beforeEach(() => {
  t = tempStore();
  s = t.open();
});
afterEach(() => t.cleanup());

const add = (st: Store, name: string) => st.files.add({ path: `/in/${name}`, size: 1, mtimeMs: 1, originalName: name });

describe('stateCounter', () => {
  it('follows adds and transitions of this connection and of another one, like countByState', () => {
    const counts = stateCounter(s.db);
    expect(counts()).toEqual(s.files.countByState());
    const a = add(s, 'a.pdf');
    const b = add(s, 'b.pdf');
    s.files.transition(a.id, 'queued');
    expect(counts()).toMatchObject({ discovered: 1, queued: 1 });
    // Another process (here: another connection) moves files on.
    const other = t.open();
    other.files.transition(b.id, 'queued');
    other.files.transition(a.id, 'failed', 'broken');
    add(other, 'c.pdf');
    expect(counts()).toEqual(s.files.countByState());
    expect(counts()).toMatchObject({ discovered: 1, queued: 1, failed: 1 });
  });

  it('counts again when rows were written without an event', () => {
    const counts = stateCounter(s.db);
    add(s, 'a.pdf');
    expect(counts()).toMatchObject({ discovered: 1 });
    s.db.prepare("INSERT INTO files (folder_id, path, size, mtime_ms, state, original_name, created_ms, updated_ms) VALUES (NULL, '/x', 1, 1, 'done', 'x', 1, 1)").run();
    expect(counts()).toEqual(s.files.countByState());
    expect(counts()).toMatchObject({ discovered: 1, done: 1 });
  });

  it('hands out copies', () => {
    const counts = stateCounter(s.db);
    counts().queued = 99;
    expect(counts().queued).toBe(0);
  });
});

describe('queue total', () => {
  it('is counted again after a change by this connection or another one', () => {
    for (let i = 0; i < 3; i++) add(s, `scan-${i}.pdf`);
    expect(s.browse.queue({ name: 'scan' }, 0, 1).total).toBe(3);
    expect(s.browse.queue({ states: ['discovered'] }, 0, 1).total).toBe(3);
    add(s, 'scan-3.pdf');
    expect(s.browse.queue({ name: 'scan' }, 0, 1).total).toBe(4);
    const other = t.open();
    const f = add(other, 'scan-4.pdf');
    expect(s.browse.queue({ name: 'scan' }, 0, 1).total).toBe(5);
    other.files.transition(f.id, 'queued');
    expect(s.browse.queue({ states: ['discovered'] }, 0, 1).total).toBe(4);
    expect(s.browse.queue({ states: ['queued'] }, 0, 1).total).toBe(1);
  });
});
