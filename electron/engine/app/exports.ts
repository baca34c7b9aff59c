/**
 * Exports of what is selected across runs (issue 12): every run with stored results of one folder
 * (or of the files added by hand), started within a date range, in one CSV or JSON file. Used by
 * `docsync export` and the app's export handlers.
 */
import { resultsCsv, resultsJson, resultsWideCsv, type RunNames } from '../pipeline/outputs.js';
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

export function exportText(format: ExportFormat, files: ResultFileRow[], runs?: RunNames): string {
  if (format === 'json') return `${resultsJson(files, runs)}\n`;
  return format === 'csv-wide' ? resultsWideCsv(files, runs) : resultsCsv(files, runs);
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
  return { text: exportText(format, files, names), runs: runs.length, files: files.length };
}
