// The runs store (renderer/src/lib/state/runs.svelte.ts) on the real engine side: paging through the
// local store's runs, and live `run` events from the sandbox: a new run reloads the first page, a run
// already on the page is replaced in place (no reload), and durations tick only while a run on the page is running.
import { afterEach, describe, expect, it } from 'vitest';
import { bridge } from '../../../../renderer/src/lib/bridge.js';
import { RUNS_PAGE, runs } from '../../../../renderer/src/lib/state/runs.svelte.js';
import { waitUntil } from '../../../helpers/wait.js';
import { listeners, storeEnv, writeInvoice, type StoreEnv } from './store-env.js';

let env: StoreEnv | undefined;
let stop: (() => void) | undefined;
afterEach(async () => {
  stop?.();
  stop = undefined;
  await env?.close();
  env = undefined;
});

describe('runs store: paging', () => {
  it('pages of 100 newest first, next/prev clamp at the ends, an offset past the end steps back to the last page', async () => {
    env = await storeEnv();
    const e = env;
    // 230 finished runs written through the engine's own store API (no session: nothing follows them);
    // making them through the sandbox would take minutes for what is a paging test.
    for (let i = 1; i <= 230; i++) {
      const r = e.core.store.runs.addRun({ serviceRunId: `run-${String(i).padStart(3, '0')}`, deploymentId: 'sandbox-invoices', status: 'COMPLETE' });
      e.core.store.runs.markResultsStored(r.id);
    }
    stop = runs.start();
    await waitUntil(() => runs.total === 230 && !runs.loading, 'the first page');
    expect(runs.rows).toHaveLength(RUNS_PAGE);
    expect(runs.rows[0]?.serviceRunId).toBe('run-230');
    expect(runs.rows.at(-1)?.serviceRunId).toBe('run-131');
    expect([runs.page, runs.pageCount, runs.offset]).toEqual([1, 3, 0]);

    await runs.next();
    expect([runs.page, runs.offset, runs.rows[0]?.serviceRunId]).toEqual([2, 100, 'run-130']);
    await runs.next();
    expect([runs.page, runs.offset, runs.rows.length, runs.rows.at(-1)?.serviceRunId]).toEqual([3, 200, 30, 'run-001']);
    await runs.next();
    expect(runs.offset).toBe(200);
    await runs.prev();
    await runs.prev();
    await runs.prev();
    expect([runs.page, runs.offset]).toEqual([1, 0]);

    await runs.load(1000);
    expect([runs.page, runs.offset, runs.rows.length]).toEqual([3, 200, 30]);
    expect(runs.error).toBeNull();
    expect(runs.loading).toBe(false);
  });

  it("the clock ticks while a run on the page runs; the last of overlapping loads wins; a failing load shows the engine's message", async () => {
    env = await storeEnv();
    const e = env;
    for (let i = 1; i <= 150; i++) e.core.store.runs.addRun({ serviceRunId: `r-${i}`, status: 'FAILED' });
    e.core.store.runs.addRun({ serviceRunId: 'r-live', status: 'RUNNING' });
    // A running run on the page: the clock for its duration moves.
    await runs.load(0);
    expect(runs.rows[0]?.status).toBe('RUNNING');
    const t = runs.now;
    await waitUntil(() => runs.now > t, 'the clock ticks', 3000);
    // The first page's answer is held back until the second page has arrived: it must not win.
    let release = (): void => undefined;
    const held = new Promise<void>((r) => (release = r));
    e.beforeCall = (c) => (c.channel === 'runs.page' && (c.args as { offset: number }).offset === 0 ? held : undefined);
    const first = runs.load(0);
    await runs.load(100);
    expect([runs.offset, runs.rows.length, runs.loading]).toEqual([100, 51, false]);
    release();
    await first;
    e.beforeCall = null;
    expect([runs.offset, runs.rows.length, runs.total, runs.loading]).toEqual([100, 51, 151, false]);
    await e.core.stop();
    await runs.load(0);
    expect(runs.error).toMatch(/database connection is not open/);
    expect(runs.offset).toBe(100);
  });
});

describe('runs store: live', { timeout: 60_000 }, () => {
  it('a run waiting for review appears by reload, then its approval replaces the row in place; nothing live, the clock stands still', async () => {
    env = await storeEnv();
    const e = env;
    await bridge.call('connection.trySandbox', {});
    const before = listeners(e, 'run');
    stop = runs.start();
    expect(listeners(e, 'run')).toBe(before + 1);
    await waitUntil(() => !runs.loading && runs.total === 0, 'the empty first page');

    // "TBD" as the total fails the sandbox's validation: the run stops for review.
    const dir = await e.dir('by-hand');
    await bridge.call('upload.paths', { paths: [await writeInvoice(dir, 7, 'TBD')], target: { type: 'deployment', id: 'sandbox-invoices-review' } });
    await waitUntil(() => runs.rows[0]?.reviewWaiting === true, 'the run waits for review on the page', 30_000);
    const waiting = runs.rows[0]!;
    expect(waiting).toMatchObject({ status: 'STOPPED_AT_CHECKPOINT', deploymentId: 'sandbox-invoices-review', files: 1, resultsStored: false });

    const loads = e.count('runs.page');
    await e.approve(waiting.serviceRunId);
    await waitUntil(() => runs.rows[0]?.status === 'COMPLETE' && runs.rows[0].resultsStored, 'the row shows the approved run with its results', 30_000);
    expect(e.count('runs.page')).toBe(loads);
    expect(runs.rows).toHaveLength(1);
    expect(runs.rows[0]).toMatchObject({ id: waiting.id, reviewWaiting: false, finishMs: expect.any(Number) });
    // What the store holds is what the engine answers for the page.
    expect(runs.rows).toEqual((await bridge.call('runs.page', { offset: 0, limit: 100 })).rows);
    // Nothing live on the page: the clock stops.
    const t2 = runs.now;
    await new Promise((r) => setTimeout(r, 1300));
    expect(runs.now).toBe(t2);

    stop();
    stop = undefined;
    expect(listeners(e, 'run')).toBe(before);
  });
});
