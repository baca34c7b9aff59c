/**
 * Watching contents held elsewhere and taking over from stale agents (rules 3 and 4 of
 * README.md): one look per poll, which reports what finished, what moved and what this agent took.
 */
import type { ElsewhereNews, ShareBatchFile, ShareBatchRecord, Takeover } from './api.js';
import type { ShareCore, Watched } from './core.js';
import { ShareRecordError, encode, highestGen, parseStoredBatch, type ClaimGen, type StoredBatch } from './records.js';

/** Reads and takeover creates at once per poll: bounded, so a poll never floods the service. */
const TAKE_LIMIT = 8;

/** Runs `fn` over `items`, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * One look. A failure of the service in its middle does not lose what was taken already: the news
 * so far is returned, a batch taken halfway is finished first on the next look, and a generation
 * this agent made without hearing so is found and adopted then.
 */
export async function lookElsewhere(core: ShareCore): Promise<ElsewhereNews> {
  const news: ElsewhereNews = { finished: [], takeovers: [], moved: [] };
  const safely = async (step: () => Promise<Takeover[]>, onFailure?: () => void): Promise<void> => {
    try {
      news.takeovers.push(...(await step()));
    } catch {
      onFailure?.(); // looked at again on the next poll
    }
  };
  await core.heart.look(); // a service that fails here has been asked nothing else yet
  for (const [name, gen] of [...core.unfinishedTakes]) await safely(() => collectBatch(core, name, gen));
  for (const w of core.watched.values()) if (w.cur) core.heart.noteMissing(w.cur.agent);
  const now = core.clock.now();
  const toRead: string[] = [];
  const toHead: string[] = [];
  const batches = new Set<string>();
  for (const [sha, w] of core.watched) {
    const batch = w.cur?.state === 'batched' ? w.cur.batch : undefined;
    const batchHolder = batch === undefined ? undefined : core.batchHolders.get(batch);
    const stale = w.cur !== null && (core.heart.isStale(w.cur.agent) || (batchHolder !== undefined && core.heart.isStale(batchHolder)));
    if (!stale && now - w.lastLookAt < core.leaseMs) continue;
    // A batched content moves with its batch, which may have gone to an agent that died since: looked at too.
    if (batch !== undefined) batches.add(batch);
    (w.cur === null || stale ? toRead : toHead).push(sha);
  }
  // Several at once, so one slow answer (a 429's Retry-After) does not hold every other takeover.
  await eachLimited([...batches], TAKE_LIMIT, (b) => safely(() => takeBatch(core, b)));
  // The cheap look, several at once: nothing new while the next generation does not exist.
  await eachLimited(toHead, TAKE_LIMIT, async (sha) => {
    const w = core.watched.get(sha);
    if (!w?.cur) return;
    const changed = await core.files.exists(core.p.claim(sha, w.cur.gen + 1)).catch(() => null);
    if (changed) toRead.push(sha);
    else if (changed === false) w.lastLookAt = core.clock.now(); // (null: the service failed; still due next poll)
  });
  await eachLimited(toRead, TAKE_LIMIT, async (sha) => {
    const w = core.watched.get(sha);
    if (!w) return; // taken along with a batch above
    await safely(() => lookAt(core, news, batches, sha, w), () => (w.lastLookAt = Number.NEGATIVE_INFINITY));
  });
  // A member taken alone by a batch take and by its own look at once (one of them adopted the
  // other's generation) is handed over once.
  const seen = new Set<string>();
  news.takeovers = news.takeovers.filter((t) => t.kind !== 'content' || (!seen.has(t.sha256) && (seen.add(t.sha256), true)));
  return news;
}

/** Reads one watched content's newest generation and acts on it. */
async function lookAt(core: ShareCore, news: ElsewhereNews, batches: Set<string>, sha: string, w: Watched): Promise<Takeover[]> {
  let cur: ClaimGen | null;
  try {
    cur = await core.current(sha);
  } catch (e) {
    if (e instanceof ShareRecordError) return []; // a damaged record: left alone, looked at again next time
    throw e;
  }
  w.lastLookAt = core.clock.now();
  if (!cur) return [];
  if (w.cur && cur.agent !== w.cur.agent && cur.agent !== core.agent.id && (cur.state === 'claimed' || cur.state === 'batched')) {
    news.moved.push({ sha256: sha, holderId: cur.agent, holderName: cur.name });
  }
  w.cur = cur;
  if (cur.state === 'done' || cur.state === 'failed') {
    news.finished.push({ sha256: sha, holderName: cur.name, outcome: cur.state, reason: cur.reason ?? null });
    core.watched.delete(sha);
    return [];
  }
  if (cur.state === 'claimed' && cur.agent === core.agent.id) {
    // This agent's own take, made although the service's answer was lost: adopted now.
    core.hold(sha, cur);
    return [{ kind: 'content', sha256: sha, rel: w.rel }];
  }
  if (cur.state === 'released' || (cur.state === 'claimed' && core.heart.isStale(cur.agent))) {
    const t = await takeContent(core, sha, w, cur);
    return t ? [t] : [];
  }
  if (cur.state === 'batched' && cur.batch !== undefined && !batches.has(cur.batch)) {
    batches.add(cur.batch);
    return takeBatch(core, cur.batch);
  }
  return [];
}

async function takeContent(core: ShareCore, sha: string, w: Watched, cur: ClaimGen): Promise<Takeover | null> {
  await core.heart.fence();
  const next = core.claimRecord(sha, cur.gen + 1, w.rel, cur.size, 'claimed');
  if (!(await core.make(core.p.claim(sha, next.gen), next))) {
    w.lastLookAt = Number.NEGATIVE_INFINITY; // someone else moved first: look again next poll
    return null;
  }
  core.hold(sha, next);
  return { kind: 'content', sha256: sha, rel: w.rel };
}

/**
 * Takes a batch whose holder went stale: its next generation, then each of its contents that still
 * belongs to it. A content its creator had not yet marked batched (paused or killed in the middle
 * of batched()) is taken alone instead, racing that very mark: so no content is left behind.
 */
async function takeBatch(core: ShareCore, name: string): Promise<Takeover[]> {
  const gen = highestGen(await core.files.list(core.p.batchGens(name)));
  if (gen === 0) return [];
  const holder = await core.batchGen(name, gen);
  if (!holder) return [];
  core.batchHolders.set(name, holder.agent);
  core.heart.noteMissing(holder.agent);
  // Its newest generation is this agent's but unknown here: made although the answer was lost.
  if (holder.agent === core.agent.id) return core.batches.has(name) ? [] : collectBatch(core, name, gen);
  if (!core.heart.isStale(holder.agent)) return [];
  await core.heart.fence();
  const mine = core.batchRecord(gen + 1);
  if (!(await core.make(core.p.batchGen(name, mine.gen), mine))) return [];
  return collectBatch(core, name, mine.gen);
}

/** Takes the members of a batch whose generation `gen` this agent made, and hands the batch to the engine. */
async function collectBatch(core: ShareCore, name: string, gen: number): Promise<Takeover[]> {
  core.unfinishedTakes.set(name, gen);
  const held = { gen, lost: false };
  core.batches.set(name, held);
  const creator = await core.batchGen(name, 1);
  const recPath = core.p.batch(name);
  const recBytes = await core.files.read(recPath);
  const stored = recBytes ? parseStoredBatch(recPath, recBytes) : null;
  const members = stored?.files ?? [];
  core.members.set(name, members);
  const fates = await Promise.all(members.map((f) => takeMember(core, f, name, gen, creator?.agent ?? null)));
  const files = members.filter((_, i) => fates[i] === 'batch');
  const dropped = members.filter((_, i) => fates[i] !== 'batch');
  const alone: Takeover[] = members.filter((_, i) => fates[i] === 'alone').map((f) => ({ kind: 'content', sha256: f.sha256, rel: f.rel }));
  const record: ShareBatchRecord = {
    name, plan: stored?.plan ?? '', serviceBatchId: stored?.serviceBatchId ?? null, servicePath: stored?.servicePath ?? null, files, run: stored?.run ?? null,
  };
  await core.files.overwrite(recPath, encode({ ...record, files: members, agent: core.agent.id, gen } satisfies StoredBatch));
  // Paused while taking it? Then another agent may hold the batch already: hand the engine only what stayed here.
  const moved = await core.batchMoved(name, held);
  core.unfinishedTakes.delete(name);
  return moved ? alone : [{ kind: 'batch', record, dropped }, ...alone];
}

/**
 * One member of a batch just taken. With the batch ('batch') while its newest generation is batched
 * in it at an older batch generation: only the batch's holders make those, and a lost race means
 * an older holder finished it or one more holder came between (then the loop looks again). Alone
 * ('alone') while its creator still holds it only as claimed. Otherwise someone else has it.
 */
async function takeMember(core: ShareCore, f: ShareBatchFile, name: string, batchGen: number, creator: string | null): Promise<'batch' | 'alone' | 'dropped'> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const cur = await core.current(f.sha256).catch((e: unknown) => {
      if (e instanceof ShareRecordError) return null;
      throw e;
    });
    if (!cur) return 'dropped';
    if (cur.agent === core.agent.id) {
      // Taken by this agent in an earlier try of this very take (the service failed in the middle).
      if (cur.state === 'batched' && cur.batch === name && cur.batchGen === batchGen) return (core.hold(f.sha256, cur), 'batch');
      if (cur.state === 'claimed' && creator !== core.agent.id) return (core.hold(f.sha256, cur), 'alone');
    }
    let next: ClaimGen;
    if (cur.state === 'batched' && cur.batch === name && (cur.batchGen ?? 0) < batchGen) {
      next = core.claimRecord(f.sha256, cur.gen + 1, f.rel, cur.size, 'batched', { batch: name, batchGen });
    } else if (cur.state === 'claimed' && cur.agent === creator && cur.agent !== core.agent.id) {
      next = core.claimRecord(f.sha256, cur.gen + 1, f.rel, cur.size, 'claimed');
    } else {
      return 'dropped';
    }
    if (await core.make(core.p.claim(f.sha256, next.gen), next)) {
      core.hold(f.sha256, next);
      return next.state === 'batched' ? 'batch' : 'alone';
    }
  }
  return 'dropped';
}
