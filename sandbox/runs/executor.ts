import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, extname } from 'node:path';
import type { ResultDocument, ResultFile } from '../../shared/service/results.js';
import { pdfPasswordsOf, type RunSettings } from '../../shared/service/runs.js';
import type { SandboxCore } from '../core.js';
import { buildCaseInfo, processSource, readSource, writeDocumentPdf, type ProcessedFile, type Source } from '../processing/index.js';
import { logDir, type RunRow } from './create.js';
import { upgradeStoredFile } from './shape.js';

/** Documents of this many pages or more get no post-processed PDF (spec 2.7, 8). */
const POST_PROCESS_MAX_PAGES = 100;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    // The listener goes once the timer fires: a run's signal sees one sleep per file.
    const onAbort = (): void => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), resolve()), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Processes runs in the background: one file after the other, each taking observable time
 * per page, results stored as each file finishes so a restart resumes where it stopped.
 */
export class RunExecutor {
  private readonly active = new Map<string, AbortController>();
  /**
   * Held (option holdRuns, or POST /sandbox/runs/hold): runs are accepted and shown RUNNING but not
   * processed until released, as on a service whose workers are busy. Benchmarks use it so the
   * sandbox's processing, which a real service does on its own machines, does not share this
   * machine's cores with the uploads they measure.
   */
  private held: Set<string> | null;

  constructor(private readonly core: SandboxCore) {
    this.held = core.opts.holdRuns ? new Set() : null;
  }

  /** Holds runs started from now on (true), or releases every held run and processes new ones at once (false). */
  hold(on: boolean): void {
    if (on) {
      this.held ??= new Set();
      return;
    }
    const waiting = this.held ?? new Set<string>();
    this.held = null;
    for (const id of waiting) this.start(id);
  }

  /** Runs waiting to be released (0 when not holding). */
  get heldRuns(): number {
    return this.held?.size ?? 0;
  }

  row(id: string): RunRow | undefined {
    return this.core.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
  }

  start(id: string): void {
    if (this.active.has(id)) return;
    if (this.held) {
      this.held.add(id);
      return;
    }
    const ctl = new AbortController();
    this.active.set(id, ctl);
    void this.process(id, ctl.signal)
      .catch((err: unknown) => {
        // After a stop (shutdown included) the database may be closed: nothing more to record.
        if (!ctl.signal.aborted) this.finish(id, 'FAILED', `internal error: ${(err as Error).message}`, 'RUNNING');
      })
      .finally(() => this.active.delete(id));
  }

  /** Stops processing (delete, shutdown); what was stored stays stored. */
  stop(id: string): void {
    this.held?.delete(id);
    this.active.get(id)?.abort();
  }

  /** Stops processing and records CANCELLED; `from` as in finish(). */
  cancel(id: string, msg: string, from?: 'RUNNING'): void {
    this.stop(id);
    this.finish(id, 'CANCELLED', msg, from);
  }

  resumeRunning(): void {
    for (const r of this.core.db.prepare("SELECT id FROM runs WHERE status = 'RUNNING'").all() as { id: string }[]) this.start(r.id);
  }

  close(): void {
    for (const ctl of this.active.values()) ctl.abort();
  }

  /**
   * Records a new status. `from` guards the change: processing passes 'RUNNING' so that a cancel (or a
   * review) that landed while it was finishing its last steps is never overwritten.
   */
  finish(id: string, status: 'COMPLETE' | 'FAILED' | 'CANCELLED' | 'STOPPED_AT_CHECKPOINT', msg: string, from?: 'RUNNING'): void {
    const finish = status === 'STOPPED_AT_CHECKPOINT' ? null : Date.now() * 1e6;
    if (from) this.core.db.prepare('UPDATE runs SET status = ?, msg = ?, finish_ns = ? WHERE id = ? AND status = ?').run(status, msg, finish, id, from);
    else this.core.db.prepare('UPDATE runs SET status = ?, msg = ?, finish_ns = ? WHERE id = ?').run(status, msg, finish, id);
  }

  files(id: string): ProcessedFile[] {
    return (this.core.db.prepare('SELECT result FROM run_files WHERE run_id = ? ORDER BY idx').all(id) as { result: string }[]).map(
      (r) => upgradeStoredFile(JSON.parse(r.result) as ProcessedFile),
    );
  }

  private async log(r: RunRow, line: string): Promise<void> {
    const path = this.core.drives.diskPathOf(`${logDir(this.core, r)}/run.log`);
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, `${new Date().toISOString()} ${line}\n`);
  }

  private async process(id: string, signal: AbortSignal): Promise<void> {
    const r = this.row(id);
    if (!r || r.status !== 'RUNNING') return;
    const inputs = JSON.parse(r.input_paths) as string[];
    const settings = JSON.parse(r.settings) as RunSettings;
    // Only this deployment's namespace segment is read: passwords under another segment are ignored, as on the service.
    const namespace = this.core.opts.namespace;
    const read = { passwords: pdfPasswordsOf(settings.runtime_config, namespace), namespace, ocr: this.core.ocr };
    const done = (this.core.db.prepare('SELECT COUNT(*) AS n FROM run_files WHERE run_id = ?').get(id) as { n: number }).n;
    if (done === 0) await this.log(r, `run started: ${inputs.length} input file(s), app ${r.app_name} ${r.version}`);
    if (inputs.length === 0) {
      await this.log(r, 'no input files');
      return this.finish(id, 'FAILED', 'the run has no input files', 'RUNNING');
    }
    for (let i = done; i < inputs.length; i++) {
      if (signal.aborted) return;
      const servicePath = inputs[i] as string;
      const source = await readSource(this.core.drives.diskPathOf(servicePath), basename(servicePath), read);
      const result = processSource(source, basename(servicePath), servicePath);
      await sleep(this.core.opts.pageDelayMs * Math.max(1, result.page_count), signal);
      if (signal.aborted) return;
      if (settings.runtime_config?.generate_post_process_pdf) await this.postProcess(r, servicePath, result, { ...read, source }, i);
      if (signal.aborted) return;
      this.core.db.prepare('INSERT OR REPLACE INTO run_files (run_id, idx, result) VALUES (?, ?, ?)').run(id, i, JSON.stringify(result));
      await this.log(r, `processed ${servicePath}: ${result.documents.length} document(s)`);
    }
    if (signal.aborted) return;
    const files = this.files(id);
    const caseInfo = buildCaseInfo(files);
    this.core.db.prepare('UPDATE runs SET case_info = ? WHERE id = ?').run(JSON.stringify(caseInfo), id);
    await this.writeOutput(r, files);
    const docs = files.flatMap((f) => f.documents);
    const failed = docs.filter((d) => d.validations?.final_result_pass === false).length;
    if (r.review && failed > 0) {
      await this.log(r, `stopped for review: ${failed} document(s) failed validation`);
      return this.finish(id, 'STOPPED_AT_CHECKPOINT', `waiting for human review: ${count(failed, 'document')} failed validation`, 'RUNNING');
    }
    await this.log(r, 'run complete');
    this.finish(id, 'COMPLETE', `processed ${count(files.length, 'file')}, ${count(docs.length, 'document')}${failed ? `, ${failed} failed validation` : ''}`, 'RUNNING');
  }

  /** `read.source` is the file as read for its results: a scan is not OCR'd again for its PDF. */
  private async postProcess(r: RunRow, servicePath: string, result: ProcessedFile, read: { passwords: Record<string, string>; namespace: string; source: Source }, index: number): Promise<void> {
    const name = basename(servicePath);
    const stem = basename(name, extname(name));
    for (const [k, doc] of result.documents.entries()) {
      if (doc.page_numbers.length === 0 || doc.page_numbers.length >= POST_PROCESS_MAX_PAGES) continue;
      const out = `${r.output_dir}/post_processed/${index}-${stem}-doc${k + 1}.pdf`;
      const disk = this.core.drives.diskPathOf(out);
      await mkdir(dirname(disk), { recursive: true });
      try {
        await writeDocumentPdf(this.core.drives.diskPathOf(servicePath), name, doc, disk, read);
        setPostProcessed(doc, out);
      } catch (err) {
        await this.log(r, `post-processed PDF for ${name} document ${k + 1} failed: ${(err as Error).message}`);
      }
    }
  }

  private async writeOutput(r: RunRow, files: ResultFile[]): Promise<void> {
    const disk = this.core.drives.diskPathOf(`${r.output_dir}/results.json`);
    await mkdir(dirname(disk), { recursive: true });
    await writeFile(disk, JSON.stringify({ run_id: r.id, files }, null, 2));
  }
}

function setPostProcessed(doc: ResultDocument, path: string): void {
  doc.post_processed_pdf_path = path;
  doc.post_processed_paths = [path];
}

/** "1 file", "6 files": a run's message is read on the Results screen. */
function count(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}
