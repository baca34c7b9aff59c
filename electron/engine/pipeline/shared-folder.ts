/**
 * Shared hot folders, engine side (issue 15): one Share per shared folder, started and stopped with
 * the folder. Intake claims each content before it is batched; the uploader and the follower
 * re-check before every irreversible step (ShareHooks); poll() every heartbeat brings what other
 * agents finished, which agent now holds what, and work taken over (share-takeover.ts).
 * A folder without a share never reaches a Share: every hook is a no-op for it.
 */
import { hostname } from 'node:os';
import { relative, sep } from 'node:path';
import { validateFolderSettings, type HotFolderSettings } from '../../../shared/hot-folder.js';
import type { ServiceClient } from '../service/index.js';
import type { ClaimOutcome, FleetAgent, Share, ShareBatchRecord, ShareSettings } from '../share/api.js';
import { defaultCoordinationFolder } from '../share/default-folder.js';
import { serviceShareFiles } from '../share/files.js';
import { systemClock } from '../share/liveness.js';
import { lookTimeoutMs } from '../share/heartbeat.js';
import { createShare } from '../share/protocol.js';
import type { BatchRow, FileRow, FolderRow } from '../store/index.js';
import { inWords, log, setState, technical, type PipelineContext } from './context.js';
import { importTakeovers, type TakeoverHost } from './share-takeover.js';
import { TryLater } from './uploader.js';
import { shown } from '../../../shared/shown.js';

/** What a Share is made from: one per shared folder. */
export interface ShareOpenOptions {
  folderId: number;
  /** The local folder (agents may mount the share at different places: records hold paths relative to it). */
  folderPath: string;
  settings: ShareSettings;
  agentId: string;
  agentName: string;
  client: ServiceClient;
}
export type ShareFactory = (o: ShareOpenOptions) => Share | Promise<Share>;

/**
 * The share protocol over the service's filesystem API (share/protocol.ts); a share without its
 * own coordination folder uses the account's default one (share/default-folder.ts).
 */
export const joinServiceShare: ShareFactory = async (o) => {
  const coordinationFolder = o.settings.coordinationFolder || (await defaultCoordinationFolder(o.client));
  // Heartbeats and looks on a lane of their own (two connections): under load they waited for a slot
  // behind uploads and the poll's own reads, and a dead agent was seen seconds late (three-agent test).
  const live = o.client.lane(2);
  // The looks at the others' heartbeats on a third, without retries: a look asked again on its own
  // timer (twice a heartbeat) learns sooner than a retry after its backoff (a 429's Retry-After of a
  // second held a look, and with it the first sight of a dead agent's last beat, in the three-agent test).
  // A read that stalls is given up after two heartbeats (5 s at least): one look at a time, so a
  // stalled answer would otherwise hold every look, and the sight of a dead agent, for a minute.
  const lookMs = lookTimeoutMs(o.settings.heartbeatMs);
  const looks = o.client.lane(2, { limit: 0 }, { responseMs: lookMs, idleMs: lookMs });
  const close = (): void => {
    live.close();
    looks.close();
  };
  try {
    return createShare(serviceShareFiles(o.client), { ...o.settings, coordinationFolder }, { id: o.agentId, name: o.agentName, host: hostname(), pid: process.pid }, systemClock, {
      liveFiles: serviceShareFiles(live),
      lookFiles: serviceShareFiles(looks),
      onStop: close,
    });
  } catch (e) {
    close();
    throw e;
  }
};

/** Re-checks the uploader and follower make before their irreversible steps; no-ops for unshared folders. */
export interface ShareHooks {
  /** Before the batch's first step in this process: records it on the share (its contents' progress points at it). */
  beginBatch(b: BatchRow): Promise<void>;
  /** Whether the batch's folder is shared: only then is mayUpload asked file by file (the uploader asks this once a batch). */
  shares(b: BatchRow): boolean;
  /** Before a file is uploaded: false when another agent holds it now (it is given up here). */
  mayUpload(b: BatchRow, f: FileRow): Promise<boolean>;
  /** The batch moved on (uploads done, run started): its record is overwritten. */
  progressed(b: BatchRow): Promise<void>;
  /** Before the run is started: false when the batch moved on (given up here). */
  mayStartRun(b: BatchRow): Promise<boolean>;
  /**
   * The guard of an irreversible step of the batch's folder, taken before its re-read (mayUpload,
   * mayStartRun) and run before each attempt of its requests (`onAttempt`); undefined when the folder is not shared.
   */
  actGuard(b: BatchRow): (() => void) | undefined;
  /** The file vanished or changed before it was uploaded: its content's claim is let go. */
  letGo(f: FileRow): void;
  /** The file's outcome is recorded for the fleet; true while this agent still holds it (only the holder moves or deletes it). False: the file was handed to another agent ('elsewhere'), not finished here. */
  mayFinish(f: FileRow, failure: string | null): Promise<boolean>;
}

/** Relative path with '/' whatever the platform: the records are read by agents on others. */
export const relOf = (folderPath: string, path: string): string => relative(folderPath, path).split(sep).join('/');

/** The reason a content finished by another agent is skipped here, in the user's words. */
export function finishedElsewhere(holderName: string, outcome: 'done' | 'failed', reason: string | null): string {
  return outcome === 'done' ? `Processed by agent ${holderName}` : `Failed at agent ${holderName}: ${reason ?? 'no reason given'}`;
}

interface Member {
  folder: FolderRow;
  settings: HotFolderSettings;
  share: Share;
  timer?: NodeJS.Timeout;
  polling: boolean;
  /** Woken while polling: poll again at once. */
  again?: boolean;
}

/** States in which a file is this agent's work in a batch (recorded in the batch's share record). */
const IN_BATCH = new Set(['queued', 'uploading', 'uploaded', 'running', 'done']);

export class SharedFolders implements ShareHooks {
  private readonly members = new Map<number, Member>();
  /** Batches recorded on their share by this process (or taken over: recorded by their first holder). */
  private readonly recorded = new Set<string>();
  /** Files of taken-over batches held by another agent now: removed from the service batch before its run. */
  private readonly drops = new Map<string, { safeName: string }[]>();

  constructor(
    private readonly ctx: PipelineContext,
    private readonly factory: ShareFactory,
    private readonly agentName: string | undefined,
    private readonly host: TakeoverHost,
  ) {}

  /** Starts the folder's share (first heartbeat written) and its poll; re-watches files another agent held at the last stop. */
  async open(folder: FolderRow, settings: HotFolderSettings): Promise<void> {
    if (!settings.share) return;
    const agentId = this.ctx.store.share.agentId();
    const share = await this.factory({ folderId: folder.id, folderPath: folder.path, settings: settings.share, agentId, agentName: this.agentName ?? agentId.replace(/-[0-9a-f]{8}$/, ''), client: this.ctx.client });
    await share.start();
    const m: Member = { folder, settings, share, polling: false };
    try {
      await this.readopt(m);
    } catch (e) {
      await share.stop().catch(() => undefined);
      throw e;
    }
    this.members.set(folder.id, m);
    for (const f of this.ctx.store.files.list({ folderId: folder.id, state: 'elsewhere' })) if (f.sha256) share.watch(f.sha256, relOf(folder.path, f.path));
    // An agent seen stale: its work is taken over at once, not at the next poll.
    share.onStale(() => this.pollSoon(m));
    this.arm(m);
  }

  /**
   * After a restart: the contents this agent had in work are claimed again (the share gives an
   * agent back its own claims, with their batches); what another agent took over meanwhile is left
   * to it, what one finished is skipped. Until this is done the folder's batches wait (member()).
   */
  private async readopt(m: Member): Promise<void> {
    const rows = this.ctx.store.files.list({ folderId: m.folder.id }).filter((f) => f.sha256 && ['queued', 'uploading', 'uploaded', 'running'].includes(f.state));
    const outcomes: ClaimOutcome[] = [];
    for (const f of rows) outcomes.push(await m.share.claim(f.sha256 as string, relOf(m.folder.path, f.path), f.size));
    // A batch the share knows as this agent's comes back whole with the next poll (a takeover of its
    // own): its files wait for it, those only claimed too (the share hands them back as its own).
    const comingBack = new Set(rows.filter((f, i) => outcomes[i]?.kind === 'held' && (outcomes[i] as { holderId: string }).holderId === m.share.agentId && f.batchId !== null).map((f) => f.batchId));
    for (const [i, f] of rows.entries()) {
      const outcome = outcomes[i] as ClaimOutcome;
      if (outcome.kind === 'held') this.elsewhere(m, f, outcome.holderName);
      else if (outcome.kind === 'won' && comingBack.has(f.batchId)) this.elsewhere(m, f, m.share.agentName);
      // Finished by this agent just before it stopped: its follower records the end here, and moves the file.
      else if (outcome.kind === 'finished' && outcome.holderId === m.share.agentId) this.finishedBefore.add(f.sha256 as string);
      else if (outcome.kind === 'finished') {
        this.ctx.store.transaction(() => {
          if (f.batchId !== null) this.ctx.store.files.assign(f.id, { safeName: null, batchId: null, servicePath: null });
          setState(this.ctx, f.id, 'skipped', finishedElsewhere(outcome.holderName, outcome.outcome, outcome.reason));
        });
      }
    }
  }

  async close(folderId: number): Promise<void> {
    const m = this.members.get(folderId);
    if (!m) return;
    this.members.delete(folderId);
    clearTimeout(m.timer);
    await m.share.stop().catch((e: unknown) => log(this.ctx, 'warn', `${m.folder.path}: DocSync could not leave the share cleanly: ${inWords(e)}`, { detail: technical(e) }));
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.members.keys()].map((id) => this.close(id)));
  }

  fleet(folderId: number): FleetAgent[] {
    return this.members.get(folderId)?.share.fleet() ?? [];
  }

  shareOf(folderId: number | null): Share | undefined {
    return folderId === null ? undefined : this.members.get(folderId)?.share;
  }

  /** The folder's share; a shared folder whose share is not joined (yet, or any more) makes the step wait: tried again later. */
  private member(folderId: number | null): Member | undefined {
    if (folderId === null) return undefined;
    const m = this.members.get(folderId);
    if (m) return m;
    const row = this.ctx.store.folders.get(folderId);
    if (row && this.isShared(row)) throw new TryLater(new Error(`DocSync is still joining the other computers that share ${row.path}`));
    return undefined;
  }

  /** Whether a folder's settings name a share (kept per settings version: asked for every file of every folder). */
  private isShared(row: FolderRow): boolean {
    const known = this.sharedKnown.get(row.id);
    if (known && known.updatedMs === row.updatedMs) return known.shared;
    const v = validateFolderSettings(row.settings);
    const shared = v.ok && v.settings.share !== null;
    this.sharedKnown.set(row.id, { updatedMs: row.updatedMs, shared });
    return shared;
  }
  private readonly sharedKnown = new Map<number, { updatedMs: number; shared: boolean }>();
  /** Contents this agent finished on the share before a restart, not yet finished here (readopt). */
  private readonly finishedBefore = new Set<string>();

  // ---- intake ------------------------------------------------------------------------------

  /**
   * A file of a shared folder, hashed and 'stable': claims its content. Returns the row to batch
   * ('queued'), or null when another agent holds or finished it.
   */
  async admit(folderId: number, f: FileRow): Promise<FileRow | null> {
    if (!f.sha256) return f;
    // One claim of a content at a time here: two copies taken in at once both asked the share, and the
    // second answer (this agent's own claim, read back) replaced the first's hold while it was being
    // batched, so the first looked lost at its upload and both copies sat 'elsewhere' (issue 15).
    const key = `${folderId}:${f.sha256}`;
    const before = this.admitting.get(key) ?? Promise.resolve();
    const turn = before.then(() => this.admitNow(folderId, f));
    const settled = turn.then(() => undefined, () => undefined);
    this.admitting.set(key, settled);
    void settled.then(() => {
      if (this.admitting.get(key) === settled) this.admitting.delete(key);
    });
    return turn;
  }
  private readonly admitting = new Map<string, Promise<void>>();

  private async admitNow(folderId: number, f: FileRow): Promise<FileRow | null> {
    const m = this.members.get(folderId);
    if (!f.sha256) return f;
    // Not joined (the folder is stopping): the file waits 'stable' for the next start.
    if (!m) return null;
    const rel = relOf(m.folder.path, f.path);
    const outcome = await m.share.claim(f.sha256, rel, f.size);
    if (this.members.get(folderId) !== m) return null; // the folder stopped meanwhile: the next start takes the file again
    const cur = this.ctx.store.files.get(f.id);
    if (!cur || cur.state !== 'stable' || cur.sha256 !== f.sha256) return null; // changed meanwhile: its new version comes in again
    if (outcome.kind === 'finished') {
      setState(this.ctx, f.id, 'skipped', finishedElsewhere(outcome.holderName, outcome.outcome, outcome.reason));
      return null;
    }
    if (outcome.kind === 'held') {
      this.elsewhere(m, cur, outcome.holderName);
      return null;
    }
    // Won, as this agent holds the content already: its own claim from before a restart (taken), or
    // another file of the same content on its way here now: that one waits and is skipped once the first ends.
    if (this.ctx.store.share.contentInWork(folderId, f.sha256, f.id)) {
      this.elsewhere(m, cur, m.share.agentName, false);
      return null;
    }
    return this.ctx.store.transaction(() => {
      this.ctx.store.files.setHandledBy(f.id, null);
      return setState(this.ctx, f.id, 'queued');
    });
  }

  /** Leaves the file to another agent (or to another file of this agent), watching its content. */
  private elsewhere(m: Member, f: FileRow, holderName: string | null, watch = true): void {
    this.ctx.store.transaction(() => {
      if (f.batchId !== null) this.ctx.store.files.assign(f.id, { safeName: null, batchId: null, servicePath: null });
      if (holderName !== null) this.ctx.store.files.setHandledBy(f.id, holderName);
      setState(this.ctx, f.id, 'elsewhere');
    });
    if (f.sha256 && watch) m.share.watch(f.sha256, relOf(m.folder.path, f.path));
  }

  // ---- hooks for the uploader and the follower ------------------------------------------------

  /** The batch as its share record says (files this agent sends in it, what is uploaded, the run). */
  private record(m: Member, b: BatchRow): ShareBatchRecord {
    const files = this.ctx.store.files
      .list({ batchId: b.id })
      .filter((f) => f.sha256 && f.safeName && IN_BATCH.has(f.state))
      .map((f) => ({ sha256: f.sha256 as string, rel: relOf(m.folder.path, f.path), safeName: f.safeName as string, size: f.size, mtimeMs: f.mtimeMs, uploaded: f.state !== 'queued' && f.state !== 'uploading' }));
    return { name: b.name as string, plan: b.plan ?? '{}', serviceBatchId: b.serviceBatchId, servicePath: b.servicePath, files, run: this.ctx.store.runs.runForBatch(b.id)?.serviceRunId ?? null };
  }

  /** A share call the uploader waits on: a failure is tried again later with the batch, never a refusal of its files. */
  private async retrying<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw e instanceof TryLater ? e : new TryLater(e instanceof Error ? new Error(`${what}: ${e.message}`, { cause: e }) : e);
    }
  }

  async beginBatch(b: BatchRow): Promise<void> {
    const m = this.member(b.folderId);
    if (!m || !b.name || this.recorded.has(b.name)) return;
    const name = b.name;
    const record = this.record(m, b);
    // Nothing of it left here (its files wait for the share to hand the batch back): nothing to record.
    if (record.files.length === 0) return;
    await this.retrying('the share could not record the batch', async () => {
      try {
        await m.share.batched(record);
      } catch (e) {
        // Recorded already, before a restart: the share gave this agent its batch back with its contents.
        if (!(await m.share.stillMineBatch(name))) throw e;
      }
    });
    this.recorded.add(name);
  }

  actGuard(b: BatchRow): (() => void) | undefined {
    return this.member(b.folderId)?.share.actGuard();
  }

  shares(b: BatchRow): boolean {
    return this.member(b.folderId) !== undefined;
  }

  async mayUpload(b: BatchRow, f: FileRow): Promise<boolean> {
    const m = this.member(b.folderId);
    if (!m || !f.sha256) return true;
    if (await this.retrying('the share could not be asked', () => m.share.stillMine(f.sha256 as string))) return true;
    this.elsewhere(m, f, null);
    log(this.ctx, 'info', `${f.originalName} is handled by another agent of the share now; this one leaves it.`);
    return false;
  }

  async progressed(b: BatchRow): Promise<void> {
    const m = this.member(b.folderId);
    if (!m || !b.name) return;
    const fresh = this.ctx.store.runs.batch(b.id) ?? b;
    await this.retrying('the share could not record the batch', () => m.share.updateBatch(this.record(m, fresh)));
  }

  async mayStartRun(b: BatchRow): Promise<boolean> {
    const m = this.member(b.folderId);
    if (!m || !b.name || this.ctx.store.runs.runForBatch(b.id)) return true;
    const name = b.name;
    const mine = (): Promise<boolean> => this.retrying('the share could not be asked', () => m.share.stillMineBatch(name));
    let held = await mine();
    // Files of a taken-over batch that another agent holds now never go into this run: taken out of
    // the service batch once the batch is surely this agent's, then the batch is checked again right before the run.
    const dropped = this.drops.get(name) ?? [];
    if (held && dropped.length) {
      for (const d of dropped) {
        const guard = m.share.actGuard();
        await this.retrying('a file held by another agent could not be taken out of the batch', () => this.ctx.client.deleteBatchFile(Number(b.serviceBatchId), d.safeName, { onAttempt: guard }));
      }
      this.drops.delete(name);
      held = await mine();
    }
    if (held) return true;
    // The batch moved on while this agent was away: its files are another agent's now.
    for (const f of this.ctx.store.files.list({ batchId: b.id })) if (IN_BATCH.has(f.state) && f.state !== 'done') this.elsewhere(m, f, null);
    this.ctx.store.runs.markBatchDeleted(b.id);
    log(this.ctx, 'info', `Another agent of the share took over batch ${b.name}; this one leaves it.`);
    return false;
  }

  letGo(f: FileRow): void {
    // Never throws: the uploader goes on with the batch; a share not joined keeps the claim (taken back on the next start).
    const m = f.folderId === null ? undefined : this.members.get(f.folderId);
    if (!m || !f.sha256) return;
    m.share.release(f.sha256).catch((e: unknown) => log(this.ctx, 'warn', `DocSync could not let the other agents of the share take ${f.originalName}: ${inWords(e)}`, { detail: technical(e) }));
  }

  async mayFinish(f: FileRow, failure: string | null): Promise<boolean> {
    const m = this.member(f.folderId);
    if (!m || !f.sha256) return true;
    // Finished on the share before a restart: nobody takes a finished content, so the move is this agent's.
    const before = this.finishedBefore.delete(f.sha256);
    // Recorded before the file moves: after a crash in between every agent still skips the content.
    if (!before) await m.share.finished(f.sha256, failure ? 'failed' : 'done', failure);
    if (!before && !(await m.share.stillMine(f.sha256))) {
      // Taken over while this agent was away (paused past its lease): the taker finishes it. The file
      // waits 'elsewhere' until the share says how it ended there, so it is never 'done' here.
      this.elsewhere(m, f, null);
      log(this.ctx, 'info', `${f.originalName} was taken over by another agent of the share; that agent finishes it.`);
      return false;
    }
    // Files of the same content that waited for this one here are settled with it.
    const reason = failure ? finishedElsewhere(m.share.agentName, 'failed', failure) : `Already processed: same content as ${shown(f.originalName)}\n${shown(f.path)}`;
    this.ctx.store.transaction(() => {
      for (const id of this.ctx.store.share.waitingElsewhere(m.folder.id, f.sha256 as string)) if (id !== f.id) setState(this.ctx, id, 'skipped', reason);
    });
    return true;
  }

  // ---- news from the share -------------------------------------------------------------------

  private arm(m: Member): void {
    clearTimeout(m.timer);
    m.timer = setTimeout(() => void this.pollOnce(m), m.settings.share?.heartbeatMs ?? 5000);
  }

  /** Polls now, or right after the poll under way (which may have looked before the news). */
  private pollSoon(m: Member): void {
    if (this.members.get(m.folder.id) !== m) return;
    if (m.polling) {
      m.again = true;
      return;
    }
    clearTimeout(m.timer);
    void this.pollOnce(m);
  }

  private async pollOnce(m: Member): Promise<void> {
    if (this.members.get(m.folder.id) !== m || m.polling) return;
    m.polling = true;
    m.again = false;
    try {
      const news = await m.share.poll();
      if (this.members.get(m.folder.id) !== m) return;
      this.apply(m, news.finished, news.moved);
      for (const name of await importTakeovers(this.ctx, this.host, m.folder, m.share, news.takeovers, (batch, dropped) => {
        this.recorded.add(batch);
        if (dropped.length) this.drops.set(batch, dropped);
      })) log(this.ctx, 'info', name);
      this.ctx.store.share.setFleet(m.folder.id, m.share.fleet());
    } catch (e) {
      log(this.ctx, 'warn', `${m.folder.path}: DocSync could not look at the other agents of the share: ${inWords(e)}. It looks again shortly.`, { detail: technical(e), topic: 'service' });
    } finally {
      m.polling = false;
      if (this.members.get(m.folder.id) === m) {
        if (m.again) this.pollSoon(m);
        else this.arm(m);
      }
    }
  }

  /** Finished contents are skipped here; contents that changed hands show their new holder. */
  private apply(m: Member, finished: { sha256: string; holderName: string; outcome: 'done' | 'failed'; reason: string | null }[], moved: { sha256: string; holderName: string }[]): void {
    if (finished.length === 0 && moved.length === 0) return;
    const waiting = (sha: string): number[] => this.ctx.store.share.waitingElsewhere(m.folder.id, sha);
    this.ctx.store.transaction(() => {
      for (const x of finished) {
        for (const id of waiting(x.sha256)) setState(this.ctx, id, 'skipped', finishedElsewhere(x.holderName, x.outcome, x.reason));
        m.share.unwatch(x.sha256);
      }
      for (const x of moved) for (const id of waiting(x.sha256)) this.ctx.store.files.setHandledBy(id, x.holderName);
    });
  }
}
