/**
 * A small stand-in for the engine of one agent in the schedule tests. It acts only through the
 * share protocol (claim -> batch -> per file stillMine + upload -> stillMineBatch + run start ->
 * finished + stillMine + archive) and does every irreversible act in the World, which checks it.
 * As in the engine, an act may be sent well after its re-read (see `act`), and its guard decides
 * right before; what remains is the request in flight, which this model makes instant.
 */
import type { ShareBatchFile, ShareBatchRecord } from '../../../../electron/engine/share/api.js';
import type { ShareAgent } from '../../../../electron/engine/share/protocol.js';
import type { Content, World } from './sim-world.js';

export function startAgent(world: World, share: ShareAgent, actor: string, startAt: number, hbMs: number): void {
  const { sched } = world;
  const known = new Map<string, 'mine' | 'elsewhere' | 'skipped'>();
  const queue: Content[] = [];
  let batches = 0;
  /** As the engine: a step the service failed is tried again a heartbeat later. */
  const retry = async <T>(step: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await step();
      } catch {
        await sched.sleep(actor, hbMs);
      }
    }
  };

  /**
   * As the engine: the guard is taken before the re-read, and the act's request may go out well
   * after it (waiting for a connection slot, a retry's backoff: here up to two heartbeats, in a
   * third of the acts); the guard, run right before it goes, sends it or has it re-read.
   * SHARE_BREAK=unguarded sends it regardless (a deliberate break: the invariant must catch it).
   */
  const act = async (reread: () => Promise<boolean>, doIt: () => void): Promise<boolean> => {
    for (;;) {
      const guard = share.actGuard();
      if (!(await retry(reread))) return false;
      if (sched.random() < 1 / 3) await sched.sleep(actor, sched.int(0, 2 * hbMs));
      try {
        if (process.env.SHARE_BREAK !== 'unguarded') guard();
      } catch {
        continue;
      }
      doIt();
      return true;
    }
  };

  /** As the engine: a file whose claim moved on goes to `elsewhere` and is watched. */
  const elsewhere = (f: ShareBatchFile): void => {
    known.set(f.sha256, 'elsewhere');
    share.watch(f.sha256, f.rel);
  };

  const processBatch = async (rec: ShareBatchRecord, dropped: ShareBatchFile[]): Promise<void> => {
    // The engine takes dropped files out of the service batch before a run is started.
    if (dropped.length > 0 && !world.runOf(rec.name)) {
      for (const d of dropped) {
        if (!(await act(() => share.stillMineBatch(rec.name), () => world.removeFromBatch(actor, d.sha256, rec.name)))) return rec.files.forEach(elsewhere);
      }
    }
    const files = rec.files.map((f) => ({ ...f }));
    const kept: ShareBatchFile[] = [];
    for (const f of files) {
      if (!f.uploaded) {
        if (!(await act(() => share.stillMine(f.sha256), () => world.upload(actor, f.sha256, rec.name)))) {
          elsewhere(f);
          continue;
        }
        f.uploaded = true;
        await share.updateBatch({ ...rec, files }).catch(() => undefined); // the record catches up next time
      }
      kept.push(f);
    }
    // As ensureRun: a run tagged with the batch's name is followed, not started again.
    let run = world.runOf(rec.name);
    if (!run) {
      let started: ReturnType<typeof world.startRun> | undefined;
      // (A run tagged with the batch may have appeared meanwhile: followed, as ensureRun does.)
      if (!(await act(() => share.stillMineBatch(rec.name), () => (started = world.runOf(rec.name) ?? world.startRun(actor, rec.name))))) return kept.forEach(elsewhere);
      run = started as ReturnType<typeof world.startRun>;
    }
    await share.updateBatch({ ...rec, files, run: run.id }).catch(() => undefined);
    while (run.finishAt > sched.now) await sched.sleep(actor, 50);
    for (const f of kept) {
      const inRun = run.files.has(f.sha256);
      await retry(() => share.finished(f.sha256, inRun ? 'done' : 'failed', inRun ? null : 'It was not in the run.'));
      if (await retry(() => share.stillMine(f.sha256))) world.archive(actor, f.sha256);
      else elsewhere(f);
    }
  };

  const work = async (): Promise<void> => {
    for (;;) {
      for (const c of world.present()) {
        if (known.has(c.sha)) continue;
        const o = await share.claim(c.sha, c.rel, c.size).catch(() => null);
        if (!o) continue; // tried again on the next round
        if (o.kind === 'won') {
          known.set(c.sha, 'mine');
          queue.push(c);
        } else if (o.kind === 'held') {
          known.set(c.sha, 'elsewhere');
          share.watch(c.sha, c.rel);
        } else {
          known.set(c.sha, 'skipped');
        }
      }
      while (queue.length > 0) {
        const take = queue.splice(0, sched.int(1, 3));
        const rec: ShareBatchRecord = {
          name: `${actor}-b${++batches}`, plan: '{}', serviceBatchId: null, servicePath: null, run: null,
          files: take.map((c) => ({ sha256: c.sha, rel: c.rel, safeName: c.rel, size: c.size, mtimeMs: 0, uploaded: false })),
        };
        await retry(() => share.batched(rec));
        await processBatch(rec, []);
      }
      const news = await share.poll().catch(() => ({ finished: [], takeovers: [], moved: [] }));
      for (const f of news.finished) known.set(f.sha256, 'skipped');
      for (const t of news.takeovers) {
        world.takeovers[t.kind]++;
        if (t.kind === 'batch') world.takeovers.dropped += t.dropped.length;
        if (t.kind === 'content') {
          const c = world.contents.find((x) => x.sha === t.sha256);
          // It may be queued here still: lost to a takeover and taken back since.
          if (c && !queue.includes(c)) (known.set(c.sha, 'mine'), queue.push(c));
        } else {
          for (const f of t.record.files) known.set(f.sha256, 'mine');
          await processBatch(t.record, t.dropped);
        }
      }
      await sched.sleep(actor, hbMs);
    }
  };

  const heartbeat = async (): Promise<void> => {
    for (;;) {
      await sched.sleep(actor, hbMs);
      await share.beat().catch(() => undefined); // the fence beats again before any act
    }
  };

  sched.enqueue(actor, startAt, () => {
    // The protocol never throws in this world (no damaged records, no service errors): if it does, that is a finding.
    void retry(() => share.start()).then(() => Promise.all([heartbeat(), work()])).catch((e: unknown) => world.violations.push(`${actor} stopped on an error: ${(e as Error).stack}`));
  });
}
