import { stat } from 'node:fs/promises';
import { isServiceError, type ServiceClient } from '../service/index.js';
import { ShareFenced } from '../share/api.js';
import type { BatchRow, FileRow } from '../store/index.js';
import { inWords, log, setState, setStates, storeState, technical, type PipelineContext } from './context.js';
import { batchTag, parsePlan, runSettings, type BatchPlan } from './plan.js';
import { abandonBatch, removeStaleUpload, StaleUpload } from './stale-upload.js';
import { readProblem } from './unreadable.js';
import { outsideLinkReason } from './outside-link.js';
import { snapshotSeen, statSeen, type Seen } from './file-worker.js';
import { checkLinks, linkRule, type LinkRule } from './upload-links.js';
import { batchPathLater, servicePathOf } from './batch-path.js';

/**
 * Is the file still the version the store recorded? The store keeps mtimes in whole milliseconds,
 * so the comparison floors the fresh one the same way.
 */
export async function recheckStored(f: FileRow): Promise<'same' | 'changed' | 'missing'> {
  return compareStored(f, await statSeen(f.path).catch(() => null));
}

function compareStored(f: FileRow, st: Seen | null): 'same' | 'changed' | 'missing' {
  if (!st?.isFile) return 'missing';
  return st.size === f.size && Math.floor(st.mtimeMs) === f.mtimeMs ? 'same' : 'changed';
}

/**
 * recheckStored, with what was seen when it is the same (handed to the client: one look, not two,
 * per upload), and a small file's bytes read in the same look (sent as they are: no reads of the
 * upload's own).
 */
async function lookStored(f: FileRow, rule?: LinkRule): Promise<{ is: 'same' | 'changed' | 'missing' | 'outside'; seen?: Identity; bytes?: Uint8Array; real?: string }> {
  const st = await snapshotSeen(f.path).catch(() => null);
  const is = compareStored(f, st);
  if (is !== 'same' || !st) return { is };
  const seen: Identity = { size: st.size, mtimeMs: st.mtimeMs };
  if (rule) {
    // After the read: the bytes must come from the file the path leads to, inside the folder (upload-links.ts).
    const c = await checkLinks(f.path, rule, st);
    if (c.is !== 'same') return c;
    seen.dev = c.dev;
    seen.ino = c.ino;
  }
  return { is, seen, ...(st.bytes ? { bytes: st.bytes } : {}) };
}

type Identity = { size: number; mtimeMs: number; dev?: number; ino?: number };

/** Files up to the service's suggested single-upload size go in one PUT; larger ones in parts. */
export const SINGLE_PUT_MAX = 10 * 1024 * 1024;

/**
 * Files of one batch uploaded at once, at least (each multipart file runs its own parts in parallel
 * too): as many as the client has connections, so one batch alone keeps them all busy (with 6 of the
 * client's 8 two sat idle while a drop's single batch was uploaded).
 */
export const FILES_IN_FLIGHT = 6;
const filesInFlight = (client: ServiceClient): number => Math.max(FILES_IN_FLIGHT, client.config.concurrency);

/** A failure that is worth trying the whole batch again later (network, 5xx, timeouts). */
export class TryLater extends Error {
  /** The service's error behind it, when there is one (for the user's words). */
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

function isTransient(e: unknown): boolean {
  return isServiceError(e) && (e.retryable || e.kind === 'network' || e.kind === 'timeout' || e.kind === 'ambiguous');
}

/**
 * The service batch for a local batch: found by its unique name after a crash, else created. A fresh
 * batch (recorded by this process, never tried) cannot have one yet: it is created without a look.
 * `withPath`: its service path is asked for now; otherwise after its run has started (batchPathLater).
 */
async function ensureServiceBatch(ctx: PipelineContext, b: BatchRow, fresh: boolean, withPath: boolean): Promise<BatchRow> {
  if (b.serviceBatchId) return b;
  const name = b.name as string;
  const found = fresh ? [] : (await ctx.client.listBatches({})).batches.filter((x) => x.name === name);
  const id = found.length ? found[0]!.id : (await ctx.client.createBatch({ name })).id;
  const path = withPath ? await servicePathOf(ctx, id) : null;
  try {
    ctx.store.runs.setBatchService(b.id, String(id), path, ctx.serviceId);
  } catch (e) {
    // A batch on the service that the store does not know of would stay there for good (and every
    // retry would leave another): it goes again before the failure is reported.
    await ctx.client.deleteBatch(id).catch((d: unknown) => log(ctx, 'warn', `DocSync could not remove an unrecorded upload from the service: ${inWords(d)}`, { detail: `batch ${id}: ${technical(d)}` }));
    throw new Error(`the service's batch ${id} could not be recorded in the local store, so it was deleted there again (${e instanceof Error ? e.message : String(e)})`);
  }
  return ctx.store.runs.batch(b.id) as BatchRow;
}

/**
 * A batch begun on another service (the user signed in elsewhere before its run started) goes to
 * this one from the start: its files are uploaded again, here, and the other service's batch and
 * multipart sessions are left alone (this client may not speak to that service).
 */
function rehomeBatch(ctx: PipelineContext, b: BatchRow): BatchRow {
  const from = ctx.store.services.label(b.serviceId) ?? 'another service';
  const to = ctx.store.services.label(ctx.serviceId) ?? 'this service';
  ctx.store.transaction(() => {
    ctx.store.runs.forgetBatchService(b.id);
    for (const f of ctx.store.files.list({ batchId: b.id })) {
      if (f.state !== 'uploading' && f.state !== 'uploaded' && f.state !== 'queued') continue;
      ctx.store.files.abandonMultipart(f.id);
      ctx.store.files.assign(f.id, { safeName: f.safeName, batchId: b.id, servicePath: null });
      if (f.state !== 'queued') setState(ctx, f.id, 'queued', `sent to ${from} before the switch to ${to}; uploading it to ${to}`);
    }
  });
  log(ctx, 'info', `batch ${b.name} was begun on ${from}; uploading it to ${to} instead`);
  return ctx.store.runs.batch(b.id) as BatchRow;
}

async function sendFile(ctx: PipelineContext, b: BatchRow, f: FileRow, signal: AbortSignal, seen?: Identity, guard?: () => void, bytes?: Uint8Array): Promise<void> {
  const client: ServiceClient = ctx.client;
  const batchId = Number(b.serviceBatchId);
  const name = f.safeName as string;
  const onProgress = (sent: number): void => ctx.emit('progress', { fileId: f.id, sent, total: f.size });
  if (f.size <= SINGLE_PUT_MAX) {
    await client.putBatchFile(batchId, name, f.path, { onProgress: (sent) => onProgress(sent), signal, ...(seen ? { seen, ...(bytes ? { bytes } : {}) } : {}), ...(guard ? { onAttempt: guard } : {}) });
    return;
  }
  const prior = ctx.store.files.openMultipart(f.id, ctx.serviceId);
  const resumable = prior && prior.fileSize === f.size && prior.mtimeMs === Math.floor(f.mtimeMs) ? prior : undefined;
  let sessionRef = resumable?.id;
  const upload = (resume: typeof resumable) =>
    client.uploadMultipart(batchId, name, f.path, {
      signal,
      // The checked file's identity (dev, ino), so each part's read is of that file; size and mtime as recorded.
      ...(seen?.ino !== undefined ? { seen } : {}),
      ...(guard ? { onAttempt: guard } : {}),
      onProgress: (p) => onProgress(p.sent),
      ...(resume ? { resume: { sessionId: resume.sessionId, partSize: resume.partSize, parts: resume.parts.map((p) => ({ part_num: p.partNum, part_id: p.partId })) } } : {}),
      onSession: (s) => {
        if (s.sessionId === resume?.sessionId) return;
        sessionRef = ctx.store.files.startMultipart({ fileId: f.id, serviceId: ctx.serviceId, sessionId: s.sessionId, servicePath: f.servicePath ?? '', partSize: s.partSize, fileSize: f.size, mtimeMs: f.mtimeMs }).id;
      },
      onPart: (p) => {
        const partSize = resume?.partSize ?? ctx.store.files.openMultipart(f.id, ctx.serviceId)?.partSize ?? 0;
        const size = Math.min(partSize, f.size - (p.part_num - 1) * partSize);
        if (sessionRef !== undefined) ctx.store.files.recordPart(sessionRef, { partNum: p.part_num, partId: p.part_id, size });
      },
    });
  try {
    await upload(resumable);
  } catch (e) {
    // The service forgot the session (expired or aborted): start again from the first part.
    if (!resumable || !isServiceError(e) || e.status !== 404) throw e;
    ctx.store.files.abortMultipart(resumable.id);
    await upload(undefined);
  }
  if (sessionRef !== undefined) ctx.store.files.completeMultipart(sessionRef);
}

/**
 * A file that changed since it was taken waits to settle again, unless the watcher already took its
 * new version as a newer row: then this row is done with (the newer one gets its own upload).
 */
function requeueChanged(ctx: PipelineContext, f: FileRow, why: string): void {
  ctx.store.files.assign(f.id, { safeName: null, batchId: null, servicePath: null });
  const latest = ctx.store.files.byPath(f.path);
  if (latest && latest.id !== f.id) setState(ctx, f.id, 'skipped', `${why}; its newer version is uploaded instead`);
  else setState(ctx, f.id, 'discovered', `${why}; waiting for it to settle again`);
}

/**
 * Uploads one file of a batch. A file is rechecked right before and after: one that changed goes
 * back to waiting for stability (never uploaded torn), one that is gone is skipped.
 */
async function uploadFile(ctx: PipelineContext, b: BatchRow, stored: FileRow, servicePath: string | null, signal: AbortSignal, guard?: () => void, rule?: LinkRule): Promise<Sent> {
  const look = await lookStored(stored, rule);
  const before = look.is;
  if (before === 'outside') {
    // Swapped for a link leading outside the folder after it was taken: not a byte of it goes.
    if (stored.state === 'uploading') await removeStaleUpload(ctx, b, stored, 'the file became a link to a file outside the hot folder', signal);
    ctx.store.files.assign(stored.id, { safeName: null, batchId: null, servicePath: null });
    setState(ctx, stored.id, 'skipped', outsideLinkReason(look.real ?? ''));
    ctx.shared?.letGo(stored);
    return;
  }
  if (before === 'changed') {
    // Already 'uploading': an earlier attempt (before a crash or a retry) may have sent the old version.
    if (stored.state === 'uploading') await removeStaleUpload(ctx, b, stored, 'the file changed before upload', signal);
    requeueChanged(ctx, stored, 'the file changed before upload');
    ctx.shared?.letGo(stored);
    return;
  }
  // Where it goes on the service, and its next step, with other files' writes of this moment in one
  // commit (group-commit.ts); 'uploading' is stored before a byte is sent.
  const f = await ctx.commit((): FileRow => {
    if (servicePath !== stored.servicePath) ctx.store.files.assign(stored.id, { safeName: stored.safeName, batchId: b.id, servicePath });
    if (before === 'missing') return setState(ctx, stored.id, 'skipped', 'the file was deleted or moved before it was uploaded');
    return stored.state === 'uploading' ? (ctx.store.files.get(stored.id) as FileRow) : setState(ctx, stored.id, 'uploading');
  });
  if (before === 'missing') {
    ctx.shared?.letGo(stored);
    return;
  }
  try {
    await sendFile(ctx, b, f, signal, look.seen, guard, look.bytes);
  } catch (e) {
    if (e instanceof ShareFenced) throw new TryLater(e);
    if (isServiceError(e, 'file-changed')) {
      // Its read permission was taken away since it was taken in: failed with the reason, out of the
      // batch, and taken in again once it can be read (unreadable.ts).
      const why = await readProblem(f.path);
      if (why !== null) {
        ctx.store.files.assign(f.id, { safeName: null, batchId: null, servicePath: null });
        setState(ctx, f.id, 'failed', why);
        return;
      }
      requeueChanged(ctx, f, `the file changed during upload (${e.message})`);
      return;
    }
    if (isTransient(e) || isServiceError(e, 'aborted')) throw new TryLater(e);
    setState(ctx, f.id, 'failed', `The upload failed: ${inWords(e)}\n${technical(e)}`);
    return;
  }
  // Started here, awaited by the batch before its run starts: the caller takes its next file now, so
  // this file's look after and the next one's look before go to the file worker in one message, and
  // this file's 'uploaded' and the next one's 'uploading' into one group commit (issue 14, fourth round).
  return { finished: finishUpload(ctx, b, f, signal) };
}

/** What uploadFile leaves running once the bytes are sent: the look after and the 'uploaded' step. */
type Sent = { finished: Promise<void> } | undefined;

async function finishUpload(ctx: PipelineContext, b: BatchRow, f: FileRow, signal: AbortSignal): Promise<void> {
  if ((await recheckStored(f)) === 'changed') {
    // What went up is a whole, older version; the new one will get its own upload.
    await removeStaleUpload(ctx, b, f, 'the file changed while it was uploaded', signal);
    requeueChanged(ctx, f, 'the file changed while it was uploaded');
    return;
  }
  await storeState(ctx, f.id, 'uploaded');
}

/** The run of a batch: found by the batch's tag after a crash, else started (a fresh batch's without a look). */
async function ensureRun(ctx: PipelineContext, b: BatchRow, plan: BatchPlan, fresh: boolean, guard?: () => void): Promise<void> {
  if (ctx.store.runs.runForBatch(b.id)) return;
  const tag = batchTag(b.name as string);
  const t = plan.target;
  // Only runs started since the batch was recorded (less an hour of clock skew), every page of them.
  const since = Math.floor((b.createdMs - 3_600_000) / 1000);
  let existing: Awaited<ReturnType<typeof ctx.client.listRuns>>['runs'][number] | undefined;
  for (let offset = 0; !existing && !fresh; offset += 500) {
    const { runs } = await ctx.client.listRuns({ ...(t.type === 'deployment' ? { deployment_id: t.id } : { app_id: t.id }), from_timestamp: since, limit: 500, offset });
    existing = runs.find((r) => (r.tags ?? []).includes(tag));
    if (runs.length < 500) break;
  }
  // PDF passwords go under the deployment's namespace segment, the one the client also uses for secrets.
  const settings = runSettings(plan, b.name as string, ctx.client.config.namespace);
  const batchId = Number(b.serviceBatchId);
  const o = guard ? { onAttempt: guard } : {};
  if (!existing) ctx.runStartSent?.set(b.id, performance.now());
  const run =
    existing ??
    (t.type === 'deployment'
      ? await ctx.client.startDeploymentRun(t.id, { batch_id: batchId, settings }, o)
      : await ctx.client.startAppRun({ app_id: t.id, batch_id: batchId, settings, ...(t.version ? { version: t.version } : {}) }, o));
  const row = ctx.store.runs.addRun({
    serviceRunId: run.id,
    serviceId: ctx.serviceId,
    batchId: b.id,
    deploymentId: t.type === 'deployment' ? t.id : null,
    appId: t.type === 'app' ? t.id : null,
    status: run.status ?? null,
    // The run record as the service sent it (`recovered` is the client's own note, not part of it).
    record: Object.fromEntries(Object.entries(run).filter(([k]) => k !== 'recovered')),
  });
  ctx.emit('run', { run: row });
  log(ctx, 'info', `run ${run.id} started for batch ${b.name}`);
}

/**
 * Takes a closed batch as far as a started run: service batch, every file uploaded (or set
 * aside), then the run. Safe to call again after a crash: each step looks first at what exists.
 * A batch that may hold a file's stale bytes is given up instead (stale-upload.ts): returns the
 * fresh batch its other files went to, to be uploaded next.
 */
export async function uploadBatch(ctx: PipelineContext, batchId: number, signal: AbortSignal): Promise<number | undefined> {
  let b = ctx.store.runs.batch(batchId);
  if (!b || b.deletedMs) return;
  const plan = parsePlan(b.plan);
  // Only this try may skip the looks: a later one may follow a create or start that took effect.
  // A shared folder's batch always looks (another agent may have taken it up meanwhile), and asks for
  // its path first (the share's record carries it).
  const sharedBatch = ctx.shared?.shares(b) ?? false;
  const fresh = ctx.freshBatches?.delete(b.id) === true && !sharedBatch;
  if (b.serviceId !== null && b.serviceId !== ctx.serviceId) {
    // Its run, if it has one, is the other service's business.
    if (ctx.store.runs.runForBatch(b.id)) return;
    b = rehomeBatch(ctx, b);
  }
  try {
    await ctx.shared?.beginBatch(b);
    b = await ensureServiceBatch(ctx, b, fresh, sharedBatch);
    // Where each file goes on the service, stored for the whole batch before any is sent (one statement, not one a file).
    if (b.servicePath) ctx.store.files.placeBatch(b.id, b.servicePath);
    const todo = ctx.store.files.list({ batchId: b.id }).filter((f) => f.state === 'queued' || f.state === 'uploading');
    const service = b;
    // A folder's share is looked up once a batch, not once a file (a store read per file otherwise).
    const shared = ctx.shared?.shares(service) ? ctx.shared : undefined;
    const rule = await linkRule(ctx, service);
    // Several files at once: small files are bound by round trips, not bytes. The first failure that
    // calls for a later try stops taking new files; the ones in flight finish.
    let failure: unknown;
    const finishing: Promise<unknown>[] = [];
    const worker = async (): Promise<void> => {
      for (let f = todo.shift(); f && !signal.aborted && failure === undefined; f = todo.shift()) {
        const servicePath = service.servicePath && f.safeName ? `${service.servicePath}/${f.safeName}` : f.servicePath;
        const stored = ctx.store.files.get(f.id);
        // A shared folder's file whose claim moved on (this agent was paused past its lease) is left
        // to its holder; the guard, taken before that re-read, checks again before each attempt to send.
        const guard = shared?.actGuard(service);
        if (stored && shared && !(await shared.mayUpload(service, stored).catch((e: unknown) => ((failure ??= e), false)))) continue;
        if (!stored) continue;
        const sent = await uploadFile(ctx, service, stored, servicePath, signal, guard, rule).catch((e: unknown) => void (failure ??= e));
        if (sent) finishing.push(sent.finished.catch((e: unknown) => (failure ??= e)));
      }
    };
    await Promise.all(Array.from({ length: filesInFlight(ctx.client) }, worker));
    // Every file sent is looked at again and stored 'uploaded' (or set aside) before the batch goes on.
    await Promise.all(finishing);
    if (failure instanceof StaleUpload) {
      const stale = failure;
      return await abandonBatch(ctx, b, plan, stale, (f) => requeueChanged(ctx, f, stale.why));
    }
    if (failure !== undefined) throw failure;
    if (signal.aborted) return undefined;
    const uploaded = ctx.store.files.list({ batchId: b.id }).filter((f) => f.state === 'uploaded');
    if (uploaded.length === 0) {
      ctx.store.runs.markBatchDeleted(b.id);
      return undefined;
    }
    const runGuard = ctx.shared?.actGuard(b);
    if (ctx.shared) {
      await ctx.shared.progressed(b);
      if (!(await ctx.shared.mayStartRun(b))) return undefined;
    }
    await ensureRun(ctx, b, plan, fresh, runGuard);
    batchPathLater(ctx, b, signal);
    setStates(ctx, uploaded.map((f) => f.id), 'running');
    await ctx.shared?.progressed(b);
    return undefined;
  } catch (e) {
    // Stopping (aborted) is no refusal either: the batch is taken up again on the next start; nor is
    // a shared folder's step its guard stopped (ShareFenced): re-read, then tried again.
    if (e instanceof TryLater || e instanceof ShareFenced || isTransient(e) || isServiceError(e, 'aborted')) throw e instanceof TryLater ? e : new TryLater(e);
    // A refusal by the service (bad deployment, settings, permissions): the batch's files fail with the reason.
    const why = `DocSync could not send these files: ${inWords(e)}`;
    const detail = `batch ${b.name}: ${technical(e)}`;
    const ids: number[] = [];
    for (const f of ctx.store.files.list({ batchId })) {
      if (!['done', 'failed', 'skipped', 'running', 'discovered'].includes(f.state)) {
        setState(ctx, f.id, 'failed', `${why}\n${detail}`);
        ids.push(f.id);
      }
    }
    ctx.store.runs.markBatchDeleted(batchId);
    const n = ids.length;
    log(ctx, 'error', `${n === 1 ? '1 file' : `${n} files`} could not be sent: ${inWords(e)}. Retry ${n === 1 ? 'it' : 'them'} from Activity.`, { detail, topic: `files:${ids.join(',')}` });
    return undefined;
  }
}

export async function fileExists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}
