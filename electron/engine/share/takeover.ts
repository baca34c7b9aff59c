/**
 * Watching contents held elsewhere and taking over from stale agents (rules 3 and 4 of
 * README.md): one look per poll, which reports what finished, what moved and what this agent took.
 */
import { ShareFenced, type ElsewhereNews, type ShareBatchFile, type ShareBatchRecord, type Takeover } from './api.js';
import type { ShareCore, Watched } from './core.js';
import { ShareRecordError, encode, highestGen, parseStoredBatch, type ClaimGen, type StoredBatch } from './records.js';
import { shareTrace } from './trace.js';

/** Takeover calls at once per poll: bounded, so a poll never floods the service. */
const TAKE_LIMIT = 8;
/** The routine looks (HEADs, reads) at once: half the client's slots, the rest stay for uploads and claims. */
const LOOK_LIMIT = 4;

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
  const began = core.clock.now();
  // An agent turning stale meanwhile stops the routine looks below: the caller polls again at once
  // (onStale), and that poll takes the stale agent's work first.
  const epoch = core.heart.staleEpoch;
  const routine = (): boolean => core.heart.staleEpoch === epoch;
  await core.heart.lookIfOld(); // a service that fails here has been asked nothing else yet
  for (const [name, gen] of [...core.unfinishedTakes]) await safely(() => collectBatch(core, name, gen));
  for (const w of core.watched.values()) if (w.cur) core.heart.noteMissing(w.cur.agent);
  const now = core.clock.now();
  const toRead: string[] = [];
  const toHead: string[] = [];
  const batches = new Set<string>();
  /** Work of stale agents: taken first, on what was read before (the next generation's create decides). */
  const staleBatches = new Map<string, { gen: number; agent: string }>();
  const staleContents: string[] = [];
  for (const [sha, w] of core.watched) {
    const batch = w.cur?.state === 'batched' ? w.cur.batch : undefined;
    const batchHolder = batch === undefined ? undefined : core.batchHolders.get(batch);
    const stale = w.cur !== null && (core.heart.isStale(w.cur.agent) || (batchHolder !== undefined && core.heart.isStale(batchHolder)));
    if (!stale && now - w.lastLookAt < core.leaseMs) continue;
    // A batched content moves with its batch, which may have gone to an agent that died since: looked at too.
    if (batch !== undefined) batches.add(batch);
    if (stale && batch !== undefined && w.cur?.batchGen !== undefined && core.heart.isStale(w.cur.agent)) {
      staleBatches.set(batch, { gen: w.cur.batchGen, agent: w.cur.agent });
      // Read as well, after the take: when the batch moved on to a live agent, this is how it is learned.
      toRead.push(sha);
    } else if (stale && w.cur?.state === 'claimed' && w.cur.agent !== core.agent.id) staleContents.push(sha);
    else (w.cur === null || stale ? toRead : toHead).push(sha);
  }
  // Several at once, so one slow answer (a 429's Retry-After) does not hold every other takeover.
  // A stale agent's work first, each with as few calls in a row as can be: its batches (from the
  // generation its members were batched at) and the contents it only claimed.
  await eachLimited([...staleBatches.keys(), ...staleContents], TAKE_LIMIT, async (key) => {
    const hint = staleBatches.get(key);
    if (hint) {
      batches.delete(key);
      return safely(() => takeBatch(core, key, hint));
    }
    const w = core.watched.get(key);
    if (!w?.cur) return; // taken along with a batch meanwhile
    const cur = w.cur;
    await safely(async () => {
      const t = (await core.heart.staleToAct(cur.agent)) ? await takeContent(core, key, w, cur) : null;
      if (!t) toRead.push(key); // not taken: read as it is now
      return t ? [t] : [];
    }, () => (w.lastLookAt = Number.NEGATIVE_INFINITY));
  });
  await eachLimited([...batches], LOOK_LIMIT, async (b) => {
    if (routine()) await safely(() => takeBatch(core, b));
  });
  // The cheap look, several at once: nothing new while the next generation does not exist. The
  // longest-unseen first, and for half a heartbeat at most: the rest wait for the next poll, so a
  // poll stays short and a takeover never waits behind hundreds of these.
  toHead.sort((a, b) => (core.watched.get(a)?.lastLookAt ?? 0) - (core.watched.get(b)?.lastLookAt ?? 0));
  const headsUntil = core.clock.now() + core.heart.heartbeatMs / 2;
  let heads = 0;
  await eachLimited(toHead, LOOK_LIMIT, async (sha) => {
    const w = core.watched.get(sha);
    // (At least one round of them per poll, however slow the service: none is left out for good.)
    if (!w?.cur || !routine() || (heads >= LOOK_LIMIT && core.clock.now() > headsUntil)) return;
    heads++;
    const changed = await core.files.exists(core.p.claim(sha, w.cur.gen + 1)).catch(() => null);
    if (changed) toRead.push(sha);
    else if (changed === false) w.lastLookAt = core.clock.now(); // (null: the service failed; still due next poll)
  });
  // The reads too for half a heartbeat at most (a round at least): one left out is due again next poll.
  toRead.sort((a, b) => (core.watched.get(a)?.lastLookAt ?? 0) - (core.watched.get(b)?.lastLookAt ?? 0));
  const readsUntil = core.clock.now() + core.heart.heartbeatMs / 2;
  let reads = 0;
  await eachLimited(toRead, LOOK_LIMIT, async (sha) => {
    const w = core.watched.get(sha);
    if (!w) return; // taken along with a batch above
    if (!routine() || (reads >= LOOK_LIMIT && core.clock.now() > readsUntil)) {
      w.lastLookAt = Number.NEGATIVE_INFINITY;
      return;
    }
    reads++;
    await safely(() => lookAt(core, news, batches, sha, w), () => (w.lastLookAt = Number.NEGATIVE_INFINITY));
  });
  // A member taken alone by a batch take and by its own look at once (one of them adopted the
  // other's generation) is handed over once.
  const seen = new Set<string>();
  news.takeovers = news.takeovers.filter((t) => t.kind !== 'content' || (!seen.has(t.sha256) && (seen.add(t.sha256), true)));
  shareTrace(core.agent.name, () => `poll ${Math.round(core.clock.now() - began)} ms: stale batches ${staleBatches.size}, stale contents ${staleContents.length}, heads ${heads}/${toHead.length}, reads ${reads}/${toRead.length}, took ${news.takeovers.length}, finished ${news.finished.length}`);
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
  if (cur.state === 'released' || (cur.state === 'claimed' && (await core.heart.staleToAct(cur.agent)))) {
    const t = await takeContent(core, sha, w, cur);
    return t ? [t] : [];
  }
  if (cur.state === 'batched' && cur.batch !== undefined && !batches.has(cur.batch)) {
    batches.add(cur.batch);
    return takeBatch(core, cur.batch);
  }
  return [];
}

/** For a takeover's create: each attempt only while its holder is still judged stale on a recent look. */
const whileStale = (core: ShareCore, agent: string) => (): void => {
  if (!core.heart.isStale(agent)) throw new ShareFenced();
};

async function takeContent(core: ShareCore, sha: string, w: Watched, cur: ClaimGen): Promise<Takeover | null> {
  await core.heart.fence();
  const next = core.claimRecord(sha, cur.gen + 1, w.rel, cur.size, 'claimed');
  // ('released' has no holder to wait for.)
  const won = await core.make(core.p.claim(sha, next.gen), next, cur.state === 'claimed' ? whileStale(core, cur.agent) : undefined);
  shareTrace(core.agent.name, () => `content ${sha.slice(0, 12)} from ${cur.agent}: generation ${next.gen} ${won ? 'taken' : 'there already'}`);
  if (!won) {
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
async function takeBatch(core: ShareCore, name: string, hint?: { gen: number; agent: string }): Promise<Takeover[]> {
  // (Not for a batch this agent holds or is taking already: a create that finds its own generation
  // counts as made, and the batch would be handed over twice.)
  if (hint && hint.agent !== core.agent.id && !core.batches.has(name) && !core.unfinishedTakes.has(name) && (await core.heart.staleToAct(hint.agent))) {
    // Its members were batched at generation `gen` by `agent`, stale now: the next one is tried at
    // once (two calls fewer). It exists already when the batch moved on: then read as it is.
    await core.heart.fence();
    const mine = core.batchRecord(hint.gen + 1);
    const won = await core.make(core.p.batchGen(name, mine.gen), mine, whileStale(core, hint.agent));
    shareTrace(core.agent.name, () => `batch ${name} from ${hint.agent}: generation ${mine.gen} ${won ? 'taken' : 'there already'}`);
    if (won) return collectBatch(core, name, mine.gen);
  }
  const gen = highestGen(await core.files.list(core.p.batchGens(name)));
  if (gen === 0) return [];
  const holder = await core.batchGen(name, gen);
  if (!holder) return [];
  core.batchHolders.set(name, holder.agent);
  core.heart.noteMissing(holder.agent);
  // Its newest generation is this agent's but unknown here: made although the answer was lost.
  if (holder.agent === core.agent.id) return core.batches.has(name) ? [] : collectBatch(core, name, gen);
  if (!(await core.heart.staleToAct(holder.agent))) return [];
  await core.heart.fence();
  const mine = core.batchRecord(gen + 1);
  const won = await core.make(core.p.batchGen(name, mine.gen), mine, whileStale(core, holder.agent));
  shareTrace(core.agent.name, () => `batch ${name} from ${holder.agent} (read): generation ${mine.gen} ${won ? 'taken' : 'there already'}`);
  if (!won) return [];
  return collectBatch(core, name, mine.gen);
}

/** Takes the members of a batch whose generation `gen` this agent made, and hands the batch to the engine. */
async function collectBatch(core: ShareCore, name: string, gen: number): Promise<Takeover[]> {
  core.unfinishedTakes.set(name, gen);
  const held = { gen, lost: false };
  core.batches.set(name, held);
  const recPath = core.p.batch(name);
  const [creator, recBytes] = await Promise.all([core.batchGen(name, 1), core.files.read(recPath)]);
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
  // The first try on the generation last read while watching it (one call instead of three); a
  // lost create, or a decision to drop, reads it afresh.
  const cached = core.watched.get(f.sha256)?.cur ?? null;
  for (let attempt = 0; attempt < 10; attempt++) {
    const fromCache = attempt === 0 && cached !== null && cached.agent !== core.agent.id;
    const cur = fromCache ? cached : await core.current(f.sha256).catch((e: unknown) => {
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
    } else if (fromCache) {
      continue;
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
