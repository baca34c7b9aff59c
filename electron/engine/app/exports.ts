/**
 * Exports of what is selected across runs (issue 12): every run with stored results of one folder
 * (or of the files added by hand), started within a date range, in one CSV or JSON file. Used by
 * `docsync export` and the app's export handlers.
 */
import { resultsCsv, resultsJson, resultsWideCsv, type RunCases, type RunNames } from '../pipeline/outputs.js';
import type { ResultFileRow, Store, TreeRow } from '../store/index.js';

/** csv: one row per field; csv-wide: one row per document, one column per field; json: as the service sends them. */
export type ExportFormat = 'csv' | 'csv-wide' | 'json';

export interface ExportSelection {
  /** A hot folder's id; null: files added by hand; undefined: every folder. */
  folderId?: number | null;
  /** Runs started at or after this time (Unix ms). */
  sinceMs?: number;
  /** Runs started before this time (Unix ms). */
  untilMs?: number;
}

/** The text of an export: the files' results and their runs' case fields; `runs` when it spans several runs. */
export function exportText(format: ExportFormat, files: ResultFileRow[], cases: RunCases, runs?: RunNames): string {
  if (format === 'json') return `${resultsJson(files, runs, cases)}\n`;
  return format === 'csv-wide' ? resultsWideCsv(files, runs, cases) : resultsCsv(files, runs, cases);
}

/** The case fields of these runs, by local run id. */
export function casesOf(store: Store, runIds: number[]): RunCases {
  return new Map(runIds.map((id) => [id, store.results.caseFields(id)]));
}

/** One run's results and case fields as one file's text. */
export function exportRun(store: Store, runId: number, format: ExportFormat): { text: string; files: number } {
  const files = store.results.filesOfRun(runId);
  return { text: exportText(format, files, casesOf(store, [runId])), files: files.length };
}

/** The runs with stored results that the selection covers, oldest first. */
export function selectedRuns(store: Store, sel: ExportSelection): TreeRow[] {
  return store.browse.resultTree()
    .filter((r) => (sel.folderId === undefined || r.folderId === sel.folderId)
      && (sel.sinceMs === undefined || r.createdMs >= sel.sinceMs)
      && (sel.untilMs === undefined || r.createdMs < sel.untilMs))
    .reverse();
}

/** The selection's results as one file's text; each row (or JSON file) names its run. */
export function exportSelection(store: Store, sel: ExportSelection, format: ExportFormat): { text: string; runs: number; files: number } {
  const runs = selectedRuns(store, sel);
  const files = runs.flatMap((r) => store.results.filesOfRun(r.runId));
  const names: RunNames = new Map(runs.map((r) => [r.runId, r.serviceRunId]));
  return { text: exportText(format, files, casesOf(store, runs.map((r) => r.runId)), names), runs: runs.length, files: files.length };
}
