/** Single-agent rules of the share protocol with a fake clock: self-fencing, damaged records, restarts, records written. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createShare, type ShareAgent } from '../../../../electron/engine/share/protocol.js';
import type { ShareFiles } from '../../../../electron/engine/share/files.js';
import { lookTimeoutMs } from '../../../../electron/engine/share/heartbeat.js';
import { ShareRecordError, parseHeartbeat } from '../../../../electron/engine/share/records.js';
import { FakeStore, immediateShareFiles } from '../../../helpers/fake-share-files.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const C = 'drive/coord/s';
const LEASE = 1000;
const HB = 200;

function setup(store = new FakeStore(), id = 'agent-a', wrap: (f: ShareFiles) => ShareFiles = (f) => f) {
  // sleep advances this clock: the fence's wait after a lapse takes no real time here.
  const c = { t: 0, now: () => c.t, wallNow: () => 1_700_000_000_000 + c.t, sleep: (ms: number) => Promise.resolve(void (c.t += ms)) };
  const files = immediateShareFiles(store);
  const share: ShareAgent = createShare(wrap(files), { name: 's', coordinationFolder: 'drive/coord/', leaseMs: LEASE, heartbeatMs: HB }, { id, name: `Agent ${id}`, host: 'host-1', pid: 7 }, c, { timers: false });
  return { store, clock: c, files, share };
}

const rec = (name: string, shas: string[]) => ({
  name, plan: '{}', serviceBatchId: null, servicePath: null, run: null,
  files: shas.map((s, i) => ({ sha256: s, rel: `f${i}.pdf`, safeName: `f${i}.pdf`, size: 1, mtimeMs: 0, uploaded: false })),
});

describe('share protocol, one agent', () => {
  it('re-reads without a heartbeat while its own is fresh; from lease minus two heartbeats it beats first', async () => {
    const { clock, files, share } = setup();
    await share.start();
    const x = sha('x');
    await share.claim(x, 'x.pdf', 1);
    files.log.length = 0;
    clock.t += LEASE - 2 * HB - 1;
    expect(await share.stillMine(x)).toBe(true);
    expect(files.log).toEqual([`exists ${C}/claims/${x}/2.json`]);
    files.log.length = 0;
    clock.t += 1; // now exactly lease - 2 heartbeats since the last beat started
    expect(await share.stillMine(x)).toBe(true);
    expect(files.log).toEqual([`overwrite ${C}/agents/agent-a.json`, `exists ${C}/claims/${x}/2.json`]);
  });

  it('after a lapse (no beat for lease minus a heartbeat) it keeps still until no taker can act on an older look, beating meanwhile, then re-reads', async () => {
    const { clock, files, share } = setup();
    await share.start();
    const x = sha('x');
    await share.claim(x, 'x.pdf', 1);
    const guard = share.actGuard();
    files.log.length = 0;
    clock.t += LEASE; // paused (SIGSTOP) for a lease
    expect(() => guard()).toThrow(/longer than its lease allows/);
    const woke = clock.t;
    expect(await share.stillMine(x)).toBe(true);
    // It waited lease - heartbeat after the beat that ended the lapse, and beat again meanwhile
    // (here by the fence itself, no timer: whenever lease - 2 heartbeats passed).
    expect(clock.t - woke).toBeGreaterThanOrEqual(LEASE - HB);
    expect(files.log.filter((l) => l.startsWith('overwrite')).length).toBe(2);
    expect(files.log.at(-1)).toBe(`exists ${C}/claims/${x}/2.json`);
    // A guard taken before the lapse still refuses (its re-read may predate a takeover); a new one passes.
    expect(() => guard()).toThrow(/longer than its lease allows/);
    expect(() => share.actGuard()()).not.toThrow();
  });

  it('a woken agent whose batch moved on does not overwrite the new holder\'s record', async () => {
    const { store, clock, share } = setup();
    await share.start();
    const x = sha('y');
    await share.claim(x, 'y.pdf', 1);
    await share.batched(rec('b1', [x]));
    // Meanwhile another agent took the batch (its next generation) and rewrote the record.
    store.set(`${C}/batches/b1/2.json`, Buffer.from(JSON.stringify({ agent: 'agent-b', name: 'B', gen: 2, at: 0 })));
    store.set(`${C}/batches/b1.json`, Buffer.from(JSON.stringify({ ...rec('b1', [x]), run: 'run-of-b', agent: 'agent-b', gen: 2 })));
    clock.t += 5 * LEASE;
    await share.updateBatch({ ...rec('b1', [x]), run: 'late' });
    expect(store.json(`${C}/batches/b1.json`)).toMatchObject({ run: 'run-of-b', agent: 'agent-b' });
    expect(await share.stillMine(x)).toBe(false);
    expect(await share.stillMineBatch('b1')).toBe(false);
  });

  it('a damaged claim record is a clear error for that file; a damaged heartbeat of another agent is ignored', async () => {
    const { store, share } = setup();
    await share.start();
    const x = sha('damaged');
    store.set(`${C}/claims/${x}/1.json`, Buffer.from('not json at all'));
    await expect(share.claim(x, 'd.pdf', 1)).rejects.toBeInstanceOf(ShareRecordError);
    await expect(share.claim(x, 'd.pdf', 1)).rejects.toThrow(`The share record ${C}/claims/${x}/1.json cannot be read: it is not JSON.`);
    store.set(`${C}/agents/agent-z.json`, Buffer.from('{"agent": 3}'));
    store.set(`${C}/agents/README.txt`, Buffer.from('left by a person'));
    await share.poll();
    expect(share.fleet().map((f) => f.id)).toEqual(['agent-a']);
  });

  it('after a restart (same agent id) it continues its seq and adopts its own claims', async () => {
    const store = new FakeStore();
    const first = setup(store).share;
    await first.start();
    await first.beat();
    const x = sha('restart');
    await first.claim(x, 'r.pdf', 1);
    await first.batched(rec('rb', [x]));
    const again = setup(store).share;
    await again.start();
    expect(store.json(`${C}/agents/agent-a.json`)).toMatchObject({ seq: 3, inFlight: 0, name: 'Agent agent-a', host: 'host-1', pid: 7 });
    // Its claim in a batch comes back with the batch (as a takeover), never alone into a new batch.
    expect(await again.claim(x, 'r.pdf', 1)).toEqual({ kind: 'held', holderId: 'agent-a', holderName: 'Agent agent-a' });
    expect((await again.poll()).takeovers).toEqual([{ kind: 'batch', record: rec('rb', [x]), dropped: [] }]);
    expect(await again.stillMine(x)).toBe(true);
    expect(await again.stillMineBatch('rb')).toBe(true);
    expect(await again.claim(x, 'r.pdf', 1)).toEqual({ kind: 'held', holderId: 'agent-a', holderName: 'Agent agent-a' });
    const y = sha('restart-claimed');
    await first.claim(y, 'y.pdf', 1);
    expect(await again.claim(y, 'y.pdf', 1)).toEqual({ kind: 'won', gen: 1 }); // only claimed: taken up as it is
    await expect(again.batched(rec('other', [x]))).rejects.toThrow(/f0\.pdf is already in the batch rb/);
  });

  it('rejects what cannot name a service file, and batches of contents it never claimed', async () => {
    const { share } = setup();
    await share.start();
    await expect(share.claim('ABC', 'a.pdf', 1)).rejects.toThrow(/is not a sha256/);
    await expect(share.batched(rec('../up', []))).rejects.toThrow(/cannot name a service file/);
    await expect(share.batched(rec('b', [sha('never')]))).rejects.toThrow(/f0\.pdf was not claimed before it was put in a batch/);
    expect(() => createShare(immediateShareFiles(new FakeStore()), { name: 's', coordinationFolder: '', leaseMs: LEASE, heartbeatMs: HB }, { id: 'a', name: 'a', host: 'h' })).toThrow(/no coordination folder/);
  });

  it('the heartbeat says how many files it holds unfinished', async () => {
    const { store, share } = setup();
    await share.start();
    const [x, y] = [sha('h1'), sha('h2')];
    await share.claim(x, 'a.pdf', 1);
    await share.claim(y, 'b.pdf', 1);
    await share.finished(x, 'done', null);
    await share.beat();
    expect(store.json(`${C}/agents/agent-a.json`)).toMatchObject({ inFlight: 1, leaseMs: LEASE });
    expect(share.fleet()[0]).toMatchObject({ self: true, inFlight: 1, stale: false, host: 'host-1' });
  });
});

describe('share protocol, watching', () => {
  it('a batch taken from a live agent by one that then died is taken over: the batch holder\'s liveness counts, not the content\'s', async () => {
    const store = new FakeStore();
    const a = setup(store, 'agent-a');
    const c = setup(store, 'agent-c');
    await a.share.start();
    await c.share.start();
    const x = sha('orphaned');
    await a.share.claim(x, 'x.pdf', 1);
    await a.share.batched(rec('ba', [x]));
    expect(await c.share.claim(x, 'x.pdf', 1)).toEqual({ kind: 'held', holderId: 'agent-a', holderName: 'Agent agent-a' });
    c.share.watch(x, 'x.pdf');
    // agent-d took the batch while A looked stale, then died before taking its contents; A lives on.
    store.set(`${C}/batches/ba/2.json`, Buffer.from(JSON.stringify({ agent: 'agent-d', name: 'D', gen: 2, at: 0 })));
    store.set(`${C}/agents/agent-d.json`, Buffer.from(JSON.stringify({ agent: 'agent-d', name: 'D', host: 'h', pid: 1, seq: 4, inFlight: 1, leaseMs: LEASE, at: 0 })));
    let news = await c.share.poll();
    for (let step = 0; step < 12 && news.takeovers.length === 0; step++) {
      a.clock.t += HB;
      c.clock.t += HB;
      await a.share.beat();
      news = await c.share.poll();
    }
    expect(news.takeovers).toEqual([{ kind: 'batch', record: { ...rec('ba', [x]) }, dropped: [] }]);
    expect(c.clock.t).toBeGreaterThanOrEqual(LEASE);
    expect(await c.share.stillMine(x)).toBe(true);
    expect(await a.share.stillMine(x)).toBe(false);
  });
});

describe('share protocol, a stale agent\'s heartbeat', () => {
  it('names the batches it holds, and a taker takes them when it turns stale, although it never learned that their contents went into them', async () => {
    const store = new FakeStore();
    const x = sha('moved twice');
    // C's looks at x fail (a service failing those calls): it never learns that x moved from B to A.
    const blind = (f: ShareFiles): ShareFiles => ({ ...f, exists: (p) => (p.includes(`/claims/${x}/`) ? Promise.reject(new Error('503')) : f.exists(p)) });
    const [a, b, c] = [setup(store, 'agent-a'), setup(store, 'agent-b'), setup(store, 'agent-c', blind)];
    const all = [a, b, c];
    const tick = async (beating: typeof all): Promise<void> => {
      for (const s of all) s.clock.t += HB;
      for (const s of beating) await s.share.beat();
    };
    for (const s of all) await s.share.start();
    await b.share.claim(x, 'x.pdf', 1);
    for (const s of [a, c]) {
      expect(await s.share.claim(x, 'x.pdf', 1)).toMatchObject({ kind: 'held', holderId: 'agent-b' });
      s.share.watch(x, 'x.pdf');
      await s.share.poll(); // first sight of the others' seqs
    }
    // B pauses (no beats); A takes x from it and batches it.
    let took = await a.share.poll();
    for (let step = 0; step < 20 && took.takeovers.length === 0; step++) {
      await tick([a, c]);
      took = await a.share.poll();
    }
    expect(took.takeovers).toEqual([{ kind: 'content', sha256: x, rel: 'x.pdf' }]);
    await a.share.batched(rec('ba', [x]));
    await a.share.beat();
    expect(store.json(`${C}/agents/agent-a.json`)).toMatchObject({ batches: [{ name: 'ba', gen: 1 }] });
    // B wakes and beats again; A dies. C takes A's batch by its name in A's last heartbeat.
    let news = { takeovers: [] as unknown[] };
    for (let polls = 0; polls < 20 && news.takeovers.length === 0; polls++) {
      await tick([b, c]);
      c.files.log.length = 0;
      news = await c.share.poll();
    }
    expect(news.takeovers).toEqual([{ kind: 'batch', record: rec('ba', [x]), dropped: [] }]);
    expect(c.files.log).toContain(`create ${C}/batches/ba/2.json`);
    expect(await c.share.stillMine(x)).toBe(true);
    // Tried once for that heartbeat: the next polls leave the batch alone.
    c.files.log.length = 0;
    await tick([b, c]);
    await c.share.poll();
    expect(c.files.log.filter((l) => l.includes('/batches/ba'))).toEqual([]);
  });

  it('an agent from before the field (no batches in its heartbeat) is read as holding none; a malformed list is a clear error', () => {
    const beat = { agent: 'agent-z', name: 'Z', host: 'h', pid: 1, seq: 1, inFlight: 0, leaseMs: LEASE, at: 0 };
    expect(parseHeartbeat('p', Buffer.from(JSON.stringify(beat))).batches).toEqual([]);
    expect(() => parseHeartbeat('p', Buffer.from(JSON.stringify({ ...beat, batches: [{ name: 'b' }] })))).toThrow(/"batches" should be a list of batches/);
  });
});

describe('share protocol, an agent turning stale during a poll', () => {
  it('gives up the poll\'s routine looks in flight, so the next poll takes the stale agent\'s work at once', async () => {
    const store = new FakeStore();
    const [x, y] = [sha('of the one that dies'), sha('of a live one')];
    // C's looks at y (HEAD or listing) hang (a call waiting out a 429's Retry-After, say) until their signal aborts them.
    let hang = false;
    const aboutY = <T>(path: string, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> =>
      !hang || !path.includes(`/claims/${y}`) ? call() : new Promise((_, reject) => signal?.addEventListener('abort', () => reject(Object.assign(new Error('cancelled by the caller'), { kind: 'aborted' }))));
    const slow = (f: ShareFiles): ShareFiles => ({
      ...f,
      list: (folder, signal) => aboutY(folder, signal, () => f.list(folder, signal)),
      exists: (path, signal) => aboutY(path, signal, () => f.exists(path, signal)),
    });
    const [a, b, c] = [setup(store, 'agent-a'), setup(store, 'agent-b'), setup(store, 'agent-c', slow)];
    const all = [a, b, c];
    /** Heartbeats go by: the beating agents beat, C looks at the others (its look timer), C does not poll. */
    const beats = async (n: number, beating: typeof all): Promise<void> => {
      for (let i = 0; i < n; i++) {
        for (const s of all) s.clock.t += HB;
        for (const s of beating) await s.share.beat();
        await c.share.look();
      }
    };
    for (const s of all) await s.share.start();
    await a.share.claim(x, 'x.pdf', 1);
    await b.share.claim(y, 'y.pdf', 1);
    for (const [v, name] of [[x, 'x.pdf'], [y, 'y.pdf']] as const) {
      expect(await c.share.claim(v, name, 1)).toMatchObject({ kind: 'held' });
      c.share.watch(v, name);
    }
    await beats(LEASE / HB, all);
    // A beats no more. Just before its lease runs out at C, C polls: x and y are due a look, y's hangs.
    await beats(LEASE / HB - 1, [b, c]);
    hang = true;
    let ended = false;
    const polling = c.share.poll().finally(() => (ended = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(ended).toBe(false);
    // C's look timer finds A stale: the poll ends without waiting for y's look.
    await beats(2, [b, c]);
    const first = await Promise.race([polling, new Promise<'still polling'>((r) => setTimeout(() => r('still polling'), 2000))]);
    expect(first).not.toBe('still polling');
    hang = false;
    const next = await c.share.poll();
    expect(next.takeovers).toEqual([{ kind: 'content', sha256: x, rel: 'x.pdf' }]);
  });
});

describe('share protocol, a routine look whose answer goes quiet', () => {
  it('is given up after the look timeout (real time: the service client\'s own would be a minute), and looked at again on the next poll', async () => {
    const store = new FakeStore();
    const y = sha('held by a live agent');
    let hang = true;
    let given = 0;
    // B's HEADs and listings of y's claims hang until their signal aborts them (an answer gone quiet).
    const quiet = (f: ShareFiles): ShareFiles => {
      const aboutY = <T>(path: string, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> =>
        !hang || !path.includes(`/claims/${y}`) ? call() : new Promise((_, reject) => signal?.addEventListener('abort', () => (given++, reject(Object.assign(new Error('cancelled by the caller'), { kind: 'aborted' })))));
      return { ...f, list: (p, sg) => aboutY(p, sg, () => f.list(p, sg)), exists: (p, sg) => aboutY(p, sg, () => f.exists(p, sg)) };
    };
    const [a, b] = [setup(store, 'agent-a'), setup(store, 'agent-b', quiet)];
    for (const s of [a, b]) await s.share.start();
    await a.share.claim(y, 'y.pdf', 1);
    hang = false;
    expect(await b.share.claim(y, 'y.pdf', 1)).toMatchObject({ kind: 'held' });
    b.share.watch(y, 'y.pdf');
    // A lease of heartbeats goes by, both beating: y is due a look at B.
    for (let i = 0; i < LEASE / HB; i++) {
      for (const s of [a, b]) s.clock.t += HB;
      for (const s of [a, b]) await s.share.beat();
    }
    hang = true;
    const first = await Promise.race([b.share.poll(), new Promise<'still polling'>((r) => setTimeout(() => r('still polling'), lookTimeoutMs(HB) + 3000))]);
    expect(first).not.toBe('still polling');
    expect(given).toBeGreaterThan(0);
    // A finishes y; B's next poll looks at y again and hears it.
    await a.share.finished(y, 'done', null);
    hang = false;
    const next = await b.share.poll();
    expect(next.finished.map((f) => f.sha256)).toEqual([y]);
  }, 15_000);
});

describe('share protocol, overlapping polls', () => {
  it('two polls at once look one after the other, and a takeover is reported once', async () => {
    const store = new FakeStore();
    const a = setup(store, 'agent-a');
    const b = setup(store, 'agent-b');
    await a.share.start();
    await b.share.start();
    const x = sha('twice');
    await a.share.claim(x, 'x.pdf', 1);
    await b.share.claim(x, 'x.pdf', 1);
    b.share.watch(x, 'x.pdf');
    await b.share.poll(); // first sight of A's seq
    b.clock.t += LEASE;
    await b.share.beat();
    b.files.log.length = 0;
    const [one, two] = await Promise.all([b.share.poll(), b.share.poll()]);
    expect([...one.takeovers, ...two.takeovers]).toEqual([{ kind: 'content', sha256: x, rel: 'x.pdf' }]);
    const lists = b.files.log.flatMap((l, i) => (l === `list ${C}/agents` ? [i] : []));
    const take = b.files.log.indexOf(`create ${C}/claims/${x}/2.json`);
    expect(lists).toHaveLength(2);
    expect(lists[0]).toBeLessThan(take);
    expect(lists[1]).toBeGreaterThan(take); // the second look began after the first had ended
  });
});

describe('share protocol, a create that took effect but failed', () => {
  it('finishing again after a failed attempt that did take effect still counts as this agent\'s', async () => {
    const store = new FakeStore();
    const { share, files } = setup(store);
    await share.start();
    const x = sha('flaky');
    await share.claim(x, 'f.pdf', 1);
    // The first attempt reaches the service, but its answer is lost and the client gives up.
    const create = files.create.bind(files);
    let failOnce = true;
    files.create = async (path, data) => {
      const r = await create(path, data);
      if (failOnce && path.endsWith('/2.json')) {
        failOnce = false;
        throw new Error('socket hang up');
      }
      return r;
    };
    await expect(share.finished(x, 'done', null)).rejects.toThrow('socket hang up');
    await share.finished(x, 'done', null);
    expect(await share.stillMine(x)).toBe(true);
    expect(store.json(`${C}/claims/${x}/progress.json`)).toMatchObject({ stage: 'done', agent: 'agent-a' });
  });
});

describe('share protocol, the service failing in the middle of a takeover', () => {
  it('a batch taken halfway is finished on the next poll, and nothing taken is lost', async () => {
    const store = new FakeStore();
    const a = setup(store, 'agent-a');
    const b = setup(store, 'agent-b');
    await a.share.start();
    await b.share.start();
    const xs = [sha('m1'), sha('m2'), sha('m3')];
    for (const x of xs) await a.share.claim(x, `${x}.pdf`, 1);
    await a.share.batched(rec('half', xs));
    for (const x of xs) {
      await b.share.claim(x, `${x}.pdf`, 1);
      b.share.watch(x, `${x}.pdf`);
    }
    await b.share.poll(); // B first sees A's seq
    b.clock.t += LEASE;
    await b.share.beat();
    // The service takes the second member's new generation but the answer is lost; then it fails a while.
    const create = b.files.create.bind(b.files);
    let failing = false;
    b.files.create = async (path, data) => {
      if (failing) throw new Error('service unavailable');
      const r = await create(path, data);
      if (path === `${C}/claims/${xs[1]}/3.json`) {
        failing = true;
        throw new Error('socket hang up');
      }
      return r;
    };
    const first = await b.share.poll();
    expect(first.takeovers).toEqual([]);
    b.files.create = create; // the service is back
    const second = await b.share.poll();
    expect(second.takeovers).toEqual([{ kind: 'batch', record: rec('half', xs), dropped: [] }]);
    for (const x of xs) expect(await b.share.stillMine(x)).toBe(true);
    expect(await a.share.stillMine(xs[0]!)).toBe(false);
  });

  it('a content taken alone whose answer was lost is adopted on the next poll', async () => {
    const store = new FakeStore();
    const a = setup(store, 'agent-a');
    const b = setup(store, 'agent-b');
    await a.share.start();
    await b.share.start();
    const x = sha('lost-answer');
    await a.share.claim(x, 'x.pdf', 1);
    await b.share.claim(x, 'x.pdf', 1);
    b.share.watch(x, 'x.pdf');
    await b.share.poll();
    b.clock.t += LEASE;
    await b.share.beat();
    const create = b.files.create.bind(b.files);
    b.files.create = async (path, data) => {
      const r = await create(path, data);
      throw new Error(`socket hang up (${r})`);
    };
    expect((await b.share.poll()).takeovers).toEqual([]);
    b.files.create = create;
    expect((await b.share.poll()).takeovers).toEqual([{ kind: 'content', sha256: x, rel: 'x.pdf' }]);
    expect(await b.share.stillMine(x)).toBe(true);
  });
});
