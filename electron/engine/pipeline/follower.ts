import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { RunStatus } from '../../../shared/service/runs.js';
import { fieldFailures } from '../../../shared/ui/messages.js';
import { isInside, LocalFileNames, localName, pathInside } from '../config/local-names.js';
import { isServiceError } from '../service/index.js';
import type { FileRow, RunRow } from '../store/index.js';
import { log, setState, settingsOf, type PipelineContext } from './context.js';
import { writeFileOutputs } from './outputs.js';
import { moveInto, moveToErrorFolder } from './route.js';
import { removeStagedCopy } from './staged-drops.js';
import { ensureBatchPath } from './batch-path.js';
import { rm } from 'node:fs/promises';

export interface PollPolicy {
  /** First delay after a poll of a running run; doubles up to maxMs. */
  initialMs: number;
  maxMs: number;
  /** A run waiting for review is polled this often. */
  reviewMs: number;
}

/**
 * A run just started is first asked about 250 ms after its start was sent (its start's answer says
 * how it began), then 500 ms, 1 s ... up to 15 s after each poll was sent: a one-page run is seen
 * complete within a quarter second or so of finishing (issue 14), a long one costs a few more polls,
 * and a distant service's round trips do not stretch the schedule (issue 27). A run found again after
 * a restart is asked about at once.
 */
export const DEFAULT_POLL: PollPolicy = { initialMs: 250, maxMs: 15_000, reviewMs: 60_000 };

const ALL_BLOCKS = { include_review_results: true, include_confidence_scores: true, include_validation_results: true, include_source_info: true };

/** Stores every results page of a finished run, then downloads its post-processed PDFs. */
async function storeResults(ctx: PipelineContext, run: RunRow, signal: AbortSignal): Promise<void> {
  // Each page is parsed and stored in one long stretch of the event loop: files waiting to be taken
  // in or uploaded go first, before the next page is fetched (issue 14).
  for await (const p of ctx.client.iterateResults(run.serviceRunId, ALL_BLOCKS, { signal })) {
    ctx.store.results.storeResultsPage(run.id, p.raw, p.page, p.fileOffset, p.rawText);
    ctx.memoryCheck?.();
    await ctx.uploadsFirst?.();
  }
  // Per service: two services may use the same run ids. The run id and the PDFs' names are the
  // service's words: made local names, and the paths checked to stay below artifacts/ (issue 26).
  const root = join(ctx.home, 'artifacts');
  const dir = pathInside(root, [String(ctx.serviceId), localName(run.serviceRunId)]);
  const stored = ctx.store.results.artifactsOfRun(run.id);
  const known = new Set(stored.map((a) => a.servicePath));
  const names = new LocalFileNames(stored.filter((a) => resolve(dirname(a.localPath)) === dir).map((a) => basename(a.localPath)));
  // Only the documents' PDF paths: the run's fields (thousands, each with its JSON) are not read here.
  for (const d of ctx.store.results.postProcessedPdfsOfRun(run.id)) {
    if (known.has(d.path)) continue;
    known.add(d.path);
    ctx.store.results.addArtifact({ runId: run.id, documentId: d.documentId, servicePath: d.path, localPath: pathInside(dir, [names.assign(d.path)]) });
  }
  await mkdir(dir, { recursive: true });
  for (const a of ctx.store.results.artifactsOfRun(run.id)) {
    if (a.complete) continue;
    // A row an older DocSync stored from a hostile name: its PDF is not fetched there.
    if (!isInside(root, a.localPath)) {
      log(ctx, 'warn', 'DocSync did not download a processed PDF: the service\'s name for it would have put it outside DocSync\'s folder.', { detail: `run ${run.serviceRunId}: ${a.servicePath} -> ${a.localPath}` });
      continue;
    }
    const r = await ctx.client.downloadFile(a.servicePath, a.localPath, { signal });
    ctx.store.results.setArtifactProgress(a.id, r.size, true);
  }
  ctx.store.runs.markResultsStored(run.id);
}

/** This run's results of a file: a retried file also has the results of its earlier runs. */
const resultsOfRun = (ctx: PipelineContext, f: FileRow, runId: number) => ctx.store.results.resultsOfFile(f.id).filter((rf) => rf.runId === runId);

/** Why a file of a completed run failed: a summary of its ERROR fields in that run (then one line each), or null when it is fine. */
function fileErrors(ctx: PipelineContext, f: FileRow, runId: number): string | null {
  const failed: { name: string; errorMsg: string | null }[] = [];
  let total = 0;
  for (const rf of resultsOfRun(ctx, f, runId)) {
    for (const d of rf.documents) {
      total += d.fields.length;
      for (const x of d.fields) if (x.isError) failed.push({ name: x.name, errorMsg: x.errorMsg });
    }
  }
  return fieldFailures(failed, total);
}

/** The end of a file: state, its output files, and where it goes (archive, error folder, deleted, kept). */
async function finishFile(ctx: PipelineContext, f: FileRow, runId: number, failure: string | null, resultsStored: boolean): Promise<void> {
  const folder = f.folderId !== null ? ctx.store.folders.get(f.folderId) : undefined;
  const s = folder ? settingsOf(folder) : undefined;
  // A shared folder's file: its outcome is recorded for the fleet first. Taken over meanwhile (this
  // agent was paused past its lease): the taker finishes it, nothing is written, moved or recorded here.
  if (ctx.shared && !(await ctx.shared.mayFinish(f, failure))) return;
  if (s?.outputDir) {
    await writeFileOutputs(s.outputDir, f.originalName, resultsOfRun(ctx, f, runId)).catch((e: Error) =>
      log(ctx, 'warn', `DocSync could not write the results of ${f.originalName} into the folder's output folder; they stay in DocSync.`, { detail: `${f.path}: ${e.message}` }),
    );
  }
  // The file is moved before its final state is recorded, so 'done' or 'failed' means finished; after
  // a crash in between, the next attempt finds it moved already and only records the state.
  try {
    if (failure && s?.afterFailure.errorDir) await moveToErrorFolder(f.path, s.afterFailure.errorDir, failure);
    else if (!failure && s?.afterSuccess.action === 'archive') await moveInto(f.path, s.afterSuccess.archiveDir);
    else if (!failure && s?.afterSuccess.action === 'delete') await rm(f.path, { force: true });
    else if (!failure && resultsStored && f.folderId === null) await removeStagedCopy(ctx.home, f.path);
  } catch (e) {
    log(ctx, 'warn', `DocSync could not move ${f.originalName} out of the hot folder after it was processed; it stays where it is.`, { detail: `${f.path}: ${(e as Error).message}` });
  }
  setState(ctx, f.id, failure ? 'failed' : 'done', failure);
}

async function finishRunFiles(ctx: PipelineContext, run: RunRow, status: RunStatus, msg: string | null, signal?: AbortSignal): Promise<void> {
  if (run.batchId === null) return;
  // Its files' place on the service, asked for as the run started (batch-path.ts), is stored before
  // they finish; a refusal (the batch gone) leaves it unknown, a failure to ask is tried again.
  await ensureBatchPath(ctx, run.batchId, signal).catch((e: unknown) => {
    if (!isServiceError(e, 'http') || e.retryable) throw e;
  });
  for (const f of ctx.store.files.list({ batchId: run.batchId })) {
    if (f.state !== 'running' && f.state !== 'uploaded') continue;
    const failure = status === 'COMPLETE' ? fileErrors(ctx, f, run.id) : `the run ${status === 'CANCELLED' ? 'was cancelled' : 'failed'}: ${msg ?? 'no message'}`;
    await finishFile(ctx, f, run.id, failure, status === 'COMPLETE');
  }
}

/** `fn` in results' turn (context.ts), or at once. */
const turn = <T>(ctx: PipelineContext, fn: () => Promise<T>): Promise<T> => (ctx.resultsTurn ? ctx.resultsTurn(fn) : fn());

/**
 * Polls one run and acts on what it finds. Returns the delay before the next poll, or null when
 * the run is finished and its files are done.
 */
export async function followRun(ctx: PipelineContext, run: RunRow, previousDelayMs: number, policy: PollPolicy, signal: AbortSignal): Promise<number | null> {
  let record;
  try {
    record = await ctx.client.getRun(run.serviceRunId, { signal });
  } catch (e) {
    if (isServiceError(e, 'http') && e.status === 404) {
      ctx.store.runs.setRunStatus(run.id, { status: 'FAILED', msg: 'the run no longer exists on the service' });
      await finishRunFiles(ctx, run, 'FAILED', 'the run no longer exists on the service');
      return null;
    }
    throw e;
  }
  const status = record.status ?? null;
  const updated = ctx.store.runs.setRunStatus(run.id, {
    status,
    msg: record.msg ?? null,
    startMs: record.start_timestamp ? Math.floor(record.start_timestamp / 1e6) : null,
    finishMs: record.finish_timestamp ? Math.floor(record.finish_timestamp / 1e6) : null,
    record,
  });
  if (updated && (updated.status !== run.status || updated.msg !== run.msg)) ctx.emit('run', { run: updated });
  if (status === 'STOPPED_AT_CHECKPOINT') return policy.reviewMs;
  if (status === 'COMPLETE') {
    await turn(ctx, async () => {
      await storeResults(ctx, updated ?? run, signal);
      await finishRunFiles(ctx, run, 'COMPLETE', record.msg ?? null, signal);
    });
    return null;
  }
  if (status === 'FAILED' || status === 'CANCELLED') {
    await turn(ctx, () => finishRunFiles(ctx, run, status, record.msg ?? null, signal));
    return null;
  }
  return Math.min(policy.maxMs, previousDelayMs ? previousDelayMs * 2 : policy.initialMs);
}
