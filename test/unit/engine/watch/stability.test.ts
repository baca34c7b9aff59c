/** Stability rule (issue 4): size and mtime unchanged for the threshold; checked again right before upload. */
import { appendFile, mkdtemp, rm, stat, writeFile, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StabilityTracker, observePath, recheck } from '../../../../electron/engine/watch/stability.js';

const obs = (p: string, size: number, mtimeMs = 1000) => ({ path: p, size, mtimeMs });
/** A complete scan made at `now` that saw `entries`: returns the paths it forgot. */
const scan = (t: StabilityTracker, entries: ReturnType<typeof obs>[], now: number): string[] => {
  t.beginScan();
  for (const e of entries) t.observe(e, now);
  return t.endScan();
};

describe('StabilityTracker (pure)', () => {
  it('a file is stable only once an observation at least the threshold later shows it unchanged', () => {
    const t = new StabilityTracker(100);
    t.observe(obs('/a', 5), 0);
    expect(t.takeStable()).toEqual([]);
    t.observe(obs('/a', 5), 99);
    expect(t.takeStable()).toEqual([]);
    expect(t.nextDueAt()).toBe(100);
    t.observe(obs('/a', 5), 100);
    expect(t.takeStable()).toEqual([obs('/a', 5)]);
  });
  it('time passing without a new observation proves nothing', () => {
    const t = new StabilityTracker(100);
    t.observe(obs('/a', 5), 0);
    expect(t.takeStable()).toEqual([]);
    expect(t.unsettled()).toEqual(['/a']);
  });
  it('a change of size or of mtime restarts the clock', () => {
    const t = new StabilityTracker(100);
    t.observe(obs('/a', 5), 0);
    t.observe(obs('/a', 6), 80);
    t.observe(obs('/a', 6), 150);
    expect(t.takeStable()).toEqual([]);
    t.observe(obs('/a', 6, 2000), 179);
    t.observe(obs('/a', 6, 2000), 260);
    expect(t.takeStable()).toEqual([]);
    t.observe(obs('/a', 6, 2000), 279);
    expect(t.takeStable()).toEqual([obs('/a', 6, 2000)]);
  });
  it('each version is reported once; a reported file that changes is reported again when settled', () => {
    const t = new StabilityTracker(10);
    t.observe(obs('/a', 1), 0);
    t.observe(obs('/a', 1), 10);
    expect(t.takeStable()).toHaveLength(1);
    t.observe(obs('/a', 1), 50);
    expect(t.takeStable()).toEqual([]);
    expect(t.nextDueAt()).toBeUndefined();
    t.observe(obs('/a', 2), 60);
    t.observe(obs('/a', 2), 70);
    expect(t.takeStable()).toEqual([obs('/a', 2)]);
  });
  it('a full scan forgets what it no longer sees', () => {
    const t = new StabilityTracker(10);
    scan(t, [obs('/a', 1), obs('/b', 1)], 0);
    expect(scan(t, [obs('/b', 1)], 10)).toEqual(['/a']);
    expect(t.takeStable()).toEqual([obs('/b', 1)]);
    expect(t.has('/a')).toBe(false);
  });
  it('forgetUnder forgets the files below a folder, and only those', () => {
    const t = new StabilityTracker(10);
    for (const p of ['/in/a/x.pdf', '/in/a/b/y.pdf', '/in/ab.pdf', '/in/c.pdf']) t.observe({ path: p, size: 1, mtimeMs: 1 }, 0);
    expect(t.forgetUnder('/in/a/').sort()).toEqual(['/in/a/b/y.pdf', '/in/a/x.pdf']);
    expect([t.has('/in/ab.pdf'), t.has('/in/c.pdf'), t.size]).toEqual([true, true, 2]);
  });

  it('a threshold of 0 makes the first observation stable', () => {
    const t = new StabilityTracker(0);
    t.observe(obs('/a', 1), 5);
    expect(t.takeStable()).toEqual([obs('/a', 1)]);
  });
  it('requeue reports the same version again after a new threshold', () => {
    const t = new StabilityTracker(10);
    t.observe(obs('/a', 1), 0);
    t.observe(obs('/a', 1), 10);
    t.takeStable();
    t.requeue('/a', 20);
    t.observe(obs('/a', 1), 25);
    expect(t.takeStable()).toEqual([]);
    t.observe(obs('/a', 1), 30);
    expect(t.takeStable()).toEqual([obs('/a', 1)]);
  });
  it('what is asked of the settling files leaves out those reported, and a forgotten file leaves both lists', () => {
    const t = new StabilityTracker(10, 2);
    for (let i = 0; i < 1000; i++) t.observe(obs(`/old/${i}`, 1), 0);
    for (let i = 0; i < 1000; i++) t.observe(obs(`/old/${i}`, 1), 10);
    expect(t.takeStable()).toHaveLength(1000);
    t.observe(obs('/new', 1), 20);
    t.observe(obs('/gone', 1), 20);
    t.forget('/gone');
    t.observe(obs('/new', 1), 22);
    expect([t.unsettled(), t.quickCandidates(), t.nextDueAt(), t.size]).toEqual([['/new'], ['/new'], 22, 1001]);
    t.settle('/new');
    expect(t.takeStable()).toEqual([obs('/new', 1)]);
    expect([t.unsettled(), t.quickCandidates(), t.nextDueAt()]).toEqual([[], [], undefined]);
    // A reported file seen again unchanged stays reported; one seen changed settles again.
    t.observe(obs('/old/7', 1), 30);
    t.observe(obs('/old/8', 2), 30);
    expect(t.unsettled()).toEqual(['/old/8']);
  });
});

describe('StabilityTracker: reported versions', () => {
  it('reportedVersion gives the version on record, and nothing once it settles again or is forgotten', () => {
    const t = new StabilityTracker(10);
    t.observe(obs('/a', 1, 5.25), 0);
    expect(t.reportedVersion('/a')).toBeUndefined(); // settling
    t.observe(obs('/a', 1, 5.25), 10);
    t.takeStable();
    expect(t.reportedVersion('/a')).toEqual(obs('/a', 1, 5.25));
    t.observe(obs('/a', 2, 5.25), 20);
    expect(t.reportedVersion('/a')).toBeUndefined();
    t.observe(obs('/a', 2, 5.25), 30);
    t.takeStable();
    expect(t.reportedVersion('/a')).toEqual(obs('/a', 2, 5.25));
    t.forget('/a');
    expect([t.reportedVersion('/a'), t.has('/a'), t.size]).toEqual([undefined, false, 0]);
  });
  it('keeps every reported version exact across many files, forgotten and new ones reusing their room', () => {
    const t = new StabilityTracker(0);
    const size = (i: number): number => i * 7919 + 2 ** 40; // beyond 32 bits
    const mtime = (i: number): number => 1.7e12 + i + 0.123;
    for (let i = 0; i < 5000; i++) t.observe(obs(`/f/${i}`, size(i), mtime(i)), 0);
    expect(t.takeStable()).toHaveLength(5000);
    for (let i = 0; i < 5000; i += 2) t.forget(`/f/${i}`);
    for (let i = 5000; i < 7500; i++) t.observe(obs(`/f/${i}`, size(i), mtime(i)), 1);
    expect(t.takeStable()).toHaveLength(2500);
    expect(t.size).toBe(5000);
    for (let i = 1; i < 7500; i += i < 5000 ? 2 : 1) expect(t.reportedVersion(`/f/${i}`)).toEqual(obs(`/f/${i}`, size(i), mtime(i)));
    // Seen again unchanged: still reported, nothing to settle.
    for (let i = 1; i < 5000; i += 2) expect(t.observe(obs(`/f/${i}`, size(i), mtime(i)), 2)).toBe(false);
    expect(t.unsettled()).toEqual([]);
  });
  it('a requeued reported file settles again from its recorded version', () => {
    const t = new StabilityTracker(10);
    t.observe(obs('/a', 3, 9.5), 0);
    t.observe(obs('/a', 3, 9.5), 10);
    t.takeStable();
    t.requeue('/a', 20);
    expect([t.reportedVersion('/a'), t.unsettled()]).toEqual([undefined, ['/a']]);
    t.observe(obs('/a', 3, 9.5), 30);
    expect(t.takeStable()).toEqual([obs('/a', 3, 9.5)]);
  });
  it('a full scan forgets what it did not see; one that failed midway (never ended) forgets nothing', () => {
    const t = new StabilityTracker(0);
    for (const p of ['/a', '/b', '/c']) t.observe(obs(p, 1), 0);
    t.takeStable();
    t.observe(obs('/d', 1), 1); // settling
    t.beginScan();
    t.observe(obs('/a', 1), 2); // the scan broke off here
    expect(t.size).toBe(4);
    t.beginScan();
    t.observe(obs('/b', 1), 3);
    t.observe(obs('/d', 1), 3);
    expect(t.endScan().sort()).toEqual(['/a', '/c']);
    expect([t.has('/b'), t.has('/d'), t.size]).toEqual([true, true, 2]);
    // A file reported after being seen by a scan keeps that mark.
    t.takeStable();
    t.beginScan();
    expect(t.endScan().sort()).toEqual(['/b', '/d']);
  });
  it('a full scan and forgetUnder reach reported and settling files alike', () => {
    const t = new StabilityTracker(10);
    t.observe(obs('/in/old', 1), 0);
    t.observe(obs('/in/old', 1), 10);
    t.takeStable();
    t.observe(obs('/in/new', 1), 10);
    expect(t.forgetUnder('/in/').sort()).toEqual(['/in/new', '/in/old']);
    t.observe(obs('/a', 1), 0);
    t.observe(obs('/a', 1), 10);
    t.takeStable();
    t.observe(obs('/b', 1), 10);
    expect(scan(t, [], 20).sort()).toEqual(['/a', '/b']);
    expect(t.size).toBe(0);
  });
});

describe('a real file still being written', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'docsync-stab-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is not stable while appended to in steps, and is stable after it stops', async () => {
    const file = path.join(dir, 'growing.pdf');
    const t = new StabilityTracker(120);
    const look = async (): Promise<void> => {
      const o = await observePath(file);
      if (o) t.observe(o, performance.now());
    };
    await writeFile(file, 'start');
    for (let i = 0; i < 6; i++) {
      await look();
      expect(t.takeStable()).toEqual([]);
      await new Promise((r) => setTimeout(r, 40));
      await appendFile(file, `chunk ${i}\n`);
    }
    await look();
    expect(t.takeStable()).toEqual([]);
    await new Promise((r) => setTimeout(r, 150));
    await look();
    const stable = t.takeStable();
    expect(stable).toHaveLength(1);
    expect(stable[0]!.size).toBe((await stat(file)).size);
  });

  it('recheck: ok for the same version, changed after an append or an mtime change, missing after delete', async () => {
    const file = path.join(dir, 'r.pdf');
    await writeFile(file, 'abc');
    const seen = (await observePath(file))!;
    expect(await recheck(seen)).toEqual({ ok: true, observation: seen });
    await appendFile(file, 'd');
    expect(await recheck(seen)).toMatchObject({ ok: false, reason: 'changed', observation: { size: 4 } });
    const now = (await observePath(file))!;
    await utimes(file, new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    expect(await recheck(now)).toMatchObject({ ok: false, reason: 'changed', observation: { size: 4 } });
    await rm(file);
    expect(await recheck(now)).toEqual({ ok: false, reason: 'missing' });
    expect(await recheck({ path: dir, size: 0, mtimeMs: 0 })).toEqual({ ok: false, reason: 'not-a-file' });
    expect(await observePath(file)).toBeUndefined();
  });
});
