/**
 * Watching contents held elsewhere and taking over from stale agents (rules 3 and 4 of
 * README.md): one look per poll, which reports what finished, what moved and what this agent took.
 */
import { ShareFenced, type ElsewhereNews, type ShareBatchFile, type ShareBatchRecord, type Takeover } from './api.js';
import type { ShareCore, Watched } from './core.js';
import { deadline } from '../service/deadline.js';
import { lookTimeoutMs } from './heartbeat.js';
import { ShareRecordError, encode, highestGen, parseStoredBatch, type BatchGen, type ClaimGen, type StoredBatch } from './records.js';
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
  // The routine looks' calls in flight are given up when an agent turns stale, and once the poll has
  // looked for longer than a look may wait (an answer gone quiet would hold the poll for the client's
  // whole minute).
  const given = deadline(lookTimeoutMs(core.heart.heartbeatMs), core.heart.staleSignal);
  try {
    return await lookWithin(core, given.signal);
  } finally {
    given.clear();
  }
}

async function lookWithin(core: ShareCore, givenUp: AbortSignal): Promise<ElsewhereNews> {
  const news: ElsewhereNews = { finished: [], takeovers: [], moved: [] };
  const safely = async (step: () => Promise<Takeover[]>, onFailure?: () => void): Promise<void> => {
    try {
      news.takeovers.push(...(await step()));
    } catch {
      onFailure?.(); // looked at again on the next poll
    }
  };
  const began = core.clock.now();
  const longestUnseen = (a: string, b: string): number => (core.watched.get(a)?.lastLookAt ?? 0) - (core.watched.get(b)?.lastLookAt ?? 0);
  // An agent turning stale meanwhile stops the routine looks below: the caller polls again at once
  // (onStale), and that poll takes the stale agent's work first.
  const routine = (): boolean => !givenUp.aborted;
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
  // The batches a stale agent's last heartbeat names, although no content seen here says so: its
  // contents may have been seen here only before they went into it (taken from a third agent since).
  const heartbeatKeys = new Map<string, string>();
  for (const agent of core.heart.staleAgents()) {
    const held = core.heart.staleHeldBatches(agent);
    for (const b of held?.batches ?? []) {
      const key = `${agent}@${held?.seq ?? 0}:${b.name}`;
      if (core.fromHeartbeats.has(key)) continue;
      core.fromHeartbeats.add(key);
      const known = staleBatches.get(b.name);
      const mine = core.batches.get(b.name);
      if ((known && known.gen >= b.gen) || (mine && !mine.lost)) continue; // taken from what was seen, or held here
      heartbeatKeys.set(b.name, key);
      shareTrace(core.agent.name, () => `batch ${b.name}@${b.gen}: named by the heartbeat of stale ${agent} (seq ${held?.seq ?? '?'})`);
      staleBatches.set(b.name, { gen: b.gen, agent });
    }
  }
  // Several at once, so one slow answer (a 429's Retry-After) does not hold every other takeover.
  // A stale agent's work first, each with as few calls in a row as can be: its batches (from the
  // generation its members were batched at) and the contents it only claimed.
  await eachLimited([...staleBatches.keys(), ...staleContents], TAKE_LIMIT, async (key) => {
    const hint = staleBatches.get(key);
    if (hint) {
      batches.delete(key);
      const fromBeat = heartbeatKeys.get(key);
      // Named by a heartbeat: tried again next poll unless it was taken or has moved on from that agent
      // (a take that did nothing, its holder not yet stale to act on here, is no answer).
      const again = (): boolean => fromBeat !== undefined && core.fromHeartbeats.delete(fromBeat);
      return safely(async () => {
        const took = await takeBatch(core, key, hint);
        if (took.length === 0 && core.batchHolders.get(key) === hint.agent) again();
        return took;
      }, again);
    }
    const w = core.watched.get(key);
    if (!w?.cur) return; // taken along with a batch meanwhile
    const cur = w.cur;
    await safely(async () => {
      if (!(await core.heart.staleToAct(cur.agent))) return (toRead.push(key), []); // read as it is now
      const t = await takeContent(core, key, w, cur);
      if (t.taken) return [t.taken];
      if (t.there) return actOn(core, news, batches, key, w, t.there);
      toRead.push(key);
      return [];
    }, () => (w.lastLookAt = Number.NEGATIVE_INFINITY));
  });
  await eachLimited([...batches], LOOK_LIMIT, async (b) => {
    if (routine()) await safely(() => takeBatch(core, b));
  });
  // The cheap look, several at once: nothing new while the next generation does not exist. The
  // longest-unseen first, and for half a heartbeat at most: the rest wait for the next poll, so a
  // poll stays short and a takeover never waits behind hundreds of these.
  toHead.sort(longestUnseen);
  const headsUntil = core.clock.now() + core.heart.heartbeatMs / 2;
  let heads = 0;
  await eachLimited(toHead, LOOK_LIMIT, async (sha) => {
    const w = core.watched.get(sha);
    // (At least one round of them per poll, however slow the service: none is left out for good.)
    if (!w?.cur || !routine() || (heads >= LOOK_LIMIT && core.clock.now() > headsUntil)) return;
    heads++;
    const changed = await core.files.exists(core.p.claim(sha, w.cur.gen + 1), givenUp).catch(() => null);
    if (changed) toRead.push(sha);
    else if (changed === false) w.lastLookAt = core.clock.now(); // (null: the service failed; still due next poll)
  });
  // The reads too for half a heartbeat at most (a round at least): one left out is due again next poll.
  toRead.sort(longestUnseen);
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
    await safely(() => lookAt(core, news, batches, sha, w, routine, givenUp), () => (w.lastLookAt = Number.NEGATIVE_INFINITY));
  });
  // A member taken alone by a batch take and by its own look at once (one of them adopted the
  // other's generation) is handed over once.
  const seen = new Set<string>();
  news.takeovers = news.takeovers.filter((t) => t.kind !== 'content' || (!seen.has(t.sha256) && (seen.add(t.sha256), true)));
  shareTrace(core.agent.name, () => `poll ${Math.round(core.clock.now() - began)} ms: stale batches ${staleBatches.size} (${heartbeatKeys.size} from heartbeats), stale contents ${staleContents.length}, heads ${heads}/${toHead.length}, reads ${reads}/${toRead.length}, took ${news.takeovers.length}, finished ${news.finished.length}`);
  return news;
}

/** Reads one watched content's newest generation and acts on it. */
async function lookAt(core: ShareCore, news: ElsewhereNews, batches: Set<string>, sha: string, w: Watched, routine: () => boolean = () => true, signal?: AbortSignal): Promise<Takeover[]> {
  let cur: ClaimGen | null;
  try {
    cur = await core.current(sha, signal);
  } catch (e) {
    if (e instanceof ShareRecordError) return []; // a damaged record: left alone, looked at again next time
    throw e;
  }
  // An agent turned stale meanwhile: this poll ends as soon as it can (the next takes its work first).
  if (!routine()) return (w.lastLookAt = Number.NEGATIVE_INFINITY), [];
  w.lastLookAt = core.clock.now();
  if (!cur) return [];
  return actOn(core, news, batches, sha, w, cur);
}

/** Acts on a watched content's generation just read: finished, moved, or to be taken over (alone or with its batch). */
async function actOn(core: ShareCore, news: ElsewhereNews, batches: Set<string>, sha: string, w: Watched, cur: ClaimGen): Promise<Takeover[]> {
  if (w.cur && cur.agent !== w.cur.agent && cur.agent !== core.agent.id && (cur.state === 'claimed' || cur.state === 'batched')) {
    news.moved.push({ sha256: sha, holderId: cur.agent, holderName: cur.name });
  }
  w.cur = cur;
  if (cur.state === 'done' || cur.state === 'failed') {
    news.finished.push({ sha256: sha, holderName: cur.name, outcome: cur.state, reason: cur.reason ?? null });
    core.watched.delete(sha);
    shareTrace(core.agent.name, () => `finished ${sha.slice(0, 12)} by ${cur.agent}`);
    return [];
  }
  if (cur.state === 'claimed' && cur.agent === core.agent.id) {
    // This agent's own take, made although the service's answer was lost: adopted now.
    core.hold(sha, cur);
    return [{ kind: 'content', sha256: sha, rel: w.rel }];
  }
  if (cur.state === 'released' || (cur.state === 'claimed' && (await core.heart.staleToAct(cur.agent)))) {
    const t = await takeContent(core, sha, w, cur);
    // Lost: the generation there says where the content went (its holder's batch, often), acted on at once.
    return t.taken ? [t.taken] : t.there ? actOn(core, news, batches, sha, w, t.there) : [];
  }
  if (cur.state === 'batched' && cur.batch !== undefined && !batches.has(cur.batch)) {
    batches.add(cur.batch);
    return takeBatch(core, cur.batch, cur.batchGen !== undefined ? { gen: cur.batchGen, agent: cur.agent } : undefined);
  }
  return [];
}

/** For a takeover's create: each attempt only while its holder is still judged stale on a recent look. */
const whileStale = (core: ShareCore, agent: string) => (): void => {
  if (!core.heart.isStale(agent)) throw new ShareFenced();
};

async function takeContent(core: ShareCore, sha: string, w: Watched, cur: ClaimGen): Promise<{ taken?: Takeover; there?: ClaimGen }> {
  await core.heart.fence();
  const next = core.claimRecord(sha, cur.gen + 1, w.rel, cur.size, 'claimed');
  // ('released' has no holder to wait for.)
  const { won, there } = await core.makeOrRead(core.p.claim(sha, next.gen), next, cur.state === 'claimed' ? whileStale(core, cur.agent) : undefined);
  shareTrace(core.agent.name, () => `content ${sha.slice(0, 12)} from ${cur.agent}: generation ${next.gen} ${won ? 'taken' : `there already (${there?.state ?? '?'} by ${there?.agent ?? '?'})`}`);
  if (!won) {
    w.lastLookAt = Number.NEGATIVE_INFINITY; // someone else moved first: looked at again
    return there ? { there } : {};
  }
  core.hold(sha, next);
  return { taken: { kind: 'content', sha256: sha, rel: w.rel } };
}

/**
 * Takes a batch whose holder went stale: its next generation, then each of its contents that still
 * belongs to it. A content its creator had not yet marked batched (paused or killed in the middle
 * of batched()) is taken alone instead, racing that very mark: so no content is left behind.
 */
async function takeBatch(core: ShareCore, name: string, hint?: { gen: number; agent: string }): Promise<Takeover[]> {
  if (core.taking.has(name)) return []; // taken by another step of this poll now: its members come with it
  core.taking.add(name);
  try {
    return await takeBatchNow(core, name, hint);
  } finally {
    core.taking.delete(name);
  }
}

async function takeBatchNow(core: ShareCore, name: string, hint?: { gen: number; agent: string }): Promise<Takeover[]> {
  // (Not for a batch this agent holds or is taking already: a create that finds its own generation
  // counts as made, and the batch would be handed over twice.)
  if (hint && hint.agent !== core.agent.id && !core.batches.has(name) && !core.unfinishedTakes.has(name) && (await core.heart.staleToAct(hint.agent))) {
    // Its members were batched at generation `gen` by `agent`, stale now: the next one is tried at
    // once (two calls fewer). It exists already when the batch moved on: then read as it is.
    // What taking it needs first (its creator, its members) is read meanwhile: after the take, one
    // round of creates makes its members this agent's.
    const early = Promise.all([core.batchGen(name, 1), core.files.read(core.p.batch(name))]);
    early.catch(() => undefined); // (awaited below only when the take is won)
    await core.heart.fence();
    const mine = core.batchRecord(hint.gen + 1);
    const won = await core.make(core.p.batchGen(name, mine.gen), mine, whileStale(core, hint.agent));
    shareTrace(core.agent.name, () => `batch ${name} from ${hint.agent}: generation ${mine.gen} ${won ? 'taken' : 'there already'}`);
    if (won) return collectBatch(core, name, mine.gen, early);
  }
  const gen = highestGen(await core.files.list(core.p.batchGens(name)));
  if (gen === 0) return (shareTrace(core.agent.name, () => `batch ${name}: no generation`), []);
  const holder = await core.batchGen(name, gen);
  if (!holder) return (shareTrace(core.agent.name, () => `batch ${name}: generation ${gen} unreadable`), []);
  core.batchHolders.set(name, holder.agent);
  core.heart.noteMissing(holder.agent);
  // Its newest generation is this agent's but unknown here: made although the answer was lost.
  if (holder.agent === core.agent.id) return core.batches.has(name) ? [] : collectBatch(core, name, gen);
  if (!(await core.heart.staleToAct(holder.agent))) return (shareTrace(core.agent.name, () => `batch ${name}: holder ${holder.agent} at generation ${gen} not stale to act on`), []);
  await core.heart.fence();
  const mine = core.batchRecord(gen + 1);
  const won = await core.make(core.p.batchGen(name, mine.gen), mine, whileStale(core, holder.agent));
  shareTrace(core.agent.name, () => `batch ${name} from ${holder.agent} (read): generation ${mine.gen} ${won ? 'taken' : 'there already'}`);
  if (!won) return [];
  return collectBatch(core, name, mine.gen);
}

/** Takes the members of a batch whose generation `gen` this agent made, and hands the batch to the engine. */
async function collectBatch(core: ShareCore, name: string, gen: number, early?: Promise<[BatchGen | null, Uint8Array | null]>): Promise<Takeover[]> {
  core.unfinishedTakes.set(name, gen);
  const held = { gen, lost: false };
  core.batches.set(name, held);
  const recPath = core.p.batch(name);
  const [creator, firstBytes] = await (early ?? Promise.all([core.batchGen(name, 1), core.files.read(recPath)]));
  const first = firstBytes ? parseStoredBatch(recPath, firstBytes) : null;
  const take = (fs: readonly ShareBatchFile[]): Promise<Fate[]> => Promise.all(fs.map((f) => takeMember(core, f, name, gen, creator?.agent ?? null)));
  // Read before this agent held the batch (`early`): read again beside the members' takes, as its
  // holder may have written it since (uploads, the run). Its members are those it was made with.
  const [firstFates, againBytes] = await Promise.all([take(first?.files ?? []), early ? core.files.read(recPath) : Promise.resolve(firstBytes)]);
  const stored = againBytes ? parseStoredBatch(recPath, againBytes) : first;
  const seen = new Set((first?.files ?? []).map((f) => f.sha256));
  const later = (stored?.files ?? []).filter((f) => !seen.has(f.sha256));
  const fates = [...firstFates, ...(await take(later))];
  const bySha = new Map((stored?.files ?? []).map((f) => [f.sha256, f]));
  const members = [...(first?.files ?? []), ...later].map((f) => bySha.get(f.sha256) ?? f);
  core.members.set(name, members);
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

type Fate = 'batch' | 'alone' | 'dropped';

/**
 * One member of a batch just taken. With the batch ('batch') while its newest generation is batched
 * in it at an older batch generation: only the batch's holders make those, and a lost race means
 * an older holder finished it or one more holder came between (then the loop looks again). Alone
 * ('alone') while its creator still holds it only as claimed. Otherwise someone else has it.
 */
async function takeMember(core: ShareCore, f: ShareBatchFile, name: string, batchGen: number, creator: string | null): Promise<Fate> {
  // Each try on the generation known without a read when there is one: first the one last read while
  // watching it, then the one a lost create found there (one call instead of three each); a decision
  // to drop is made only on a fresh read.
  const cached = core.watched.get(f.sha256)?.cur ?? null;
  let known: ClaimGen | null = cached && cached.agent !== core.agent.id ? cached : null;
  for (let attempt = 0; attempt < 10; attempt++) {
    const fresh = known === null;
    const cur = known ?? await core.current(f.sha256).catch((e: unknown) => {
      if (e instanceof ShareRecordError) return null;
      throw e;
    });
    known = null;
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
    } else if (!fresh) {
      continue;
    } else {
      return 'dropped';
    }
    const made = await core.makeOrRead(core.p.claim(f.sha256, next.gen), next);
    if (made.won) {
      core.hold(f.sha256, next);
      return next.state === 'batched' ? 'batch' : 'alone';
    }
    known = made.there;
  }
  return 'dropped';
}
