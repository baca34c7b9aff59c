/** Results from the local store (offline): show, search, export. */
import { resolve } from 'node:path';
import { dayBounds, type DayBounds } from '../../../shared/day-range.js';
import { plural } from '../../../shared/ui/messages.js';
import { exportRun, exportSelection, type ExportFormat } from '../../engine/app/exports.js';
import { resultsJson } from '../../engine/pipeline/outputs.js';
import type { RunRow, Store } from '../../engine/store/index.js';
import { parseArgs, UsageError, type ParsedArgs } from '../args.js';
import { openLocalStore } from '../local.js';
import { printJson, table, writeAtomic } from '../output.js';
import { shown } from '../../../shared/shown.js';

export const RESULTS_HELP = `docsync results [RUN_ID] [--json]
  The stored results of a run (RUN_ID: the service's run id; default: the latest run with results),
  and the service that processed it.`;
export const SEARCH_HELP = `docsync search QUERY [--json]
  Full-text search over stored field values, field names, class names and file names; each hit
  says which run, and which service (FROM), it came from.`;
export const EXPORT_HELP = `docsync export RUN_ID --format csv|json [--wide] --out FILE
docsync export [--folder PATH] [--since DAY] [--until DAY] --format csv|json [--wide] --out FILE
  Writes stored results to FILE (atomically: never half a file): one run's, or those of every run
  of a hot folder (--folder PATH; --folder "by hand" for files added by hand) and/or started in a
  date range (--since DAY, --until DAY: YYYY-MM-DD, local time, both days included); rows then
  start with the run's id. CSV has one row per field (scope "document"), then a row per case field
  of the run (scope "case": what the service worked out over all its documents, such as totals);
  --wide gives one row per document and one column per field (named as the service names them),
  then a column per case field ("case: NAME"), as spreadsheets use it. JSON has files and case_fields.`;

/** What `--folder` takes for the files added by hand (no hot folder). */
const BY_HAND = 'by hand';

/** A run by service run id (or, failing that, by local id). */
function findRun(store: Store, id: string): RunRow {
  const run = store.runs.runByServiceId(id) ?? (/^\d+$/.test(id) ? store.runs.run(Number(id)) : undefined);
  if (!run) throw new UsageError(`no run "${id}" in the local store (see: docsync runs)`);
  return run;
}

function requireResults(run: RunRow): void {
  if (!run.resultsStoredMs) throw new UsageError(`run ${run.serviceRunId} has no stored results (status: ${run.reviewWaiting ? 'waiting for review' : (run.status ?? 'starting')})`);
}

export function resultsCommand(argv: string[]): void {
  const args = parseArgs(argv, { values: [], booleans: ['json'] });
  if (args.positional.length > 1) throw new UsageError('give at most one run id');
  const store = openLocalStore();
  try {
    let run: RunRow | undefined;
    if (args.positional[0] !== undefined) run = findRun(store, args.positional[0]);
    else {
      run = store.runs.listRuns().find((r) => r.resultsStoredMs);
      if (!run) throw new UsageError('no run has results yet (see: docsync runs)');
    }
    requireResults(run);
    const files = store.results.filesOfRun(run.id);
    const caseFields = store.results.caseFields(run.id);
    const origin = store.services.label(run.serviceId);
    if (args.booleans.has('json')) return printJson({ run: { ...run, origin }, files: JSON.parse(resultsJson(files)) as unknown, caseFields });
    console.log(`run ${shown(run.serviceRunId)} ${shown(run.status ?? '')}${origin ? ` from ${shown(origin)}` : ''}: ${plural(files.length, 'file')}`);
    for (const f of files) {
      f.documents.forEach((d, i) => {
        console.log(`\n${shown(f.originalFileName ?? f.inputFilePath ?? '?')} - document ${i + 1} (${shown(d.className ?? 'unclassified')}, pages ${d.pageNumbers.join(' ')})`);
        if (d.fields.length) console.log(table(['FIELD', 'VALUE', 'CONFIDENCE', 'VALID'], d.fields.map((x) => [`  ${x.name}`, x.isError ? `ERROR ${x.errorMsg ?? ''}` : x.value, x.confidenceModel, x.valid === null ? '' : x.valid ? 'yes' : 'no'])));
      });
    }
    if (caseFields.length) console.log(`\ncase fields\n${table(['FIELD', 'VALUE'], caseFields.map((c) => [`  ${c.name}`, c.value]))}`);
  } finally {
    store.close();
  }
}

export function searchCommand(argv: string[]): void {
  const args = parseArgs(argv, { values: [], booleans: ['json'] });
  if (args.positional.length === 0) throw new UsageError('give something to search for: docsync search QUERY');
  const store = openLocalStore();
  try {
    const hits = store.search(args.positional.join(' ')).map((h) => ({ ...h, origin: store.services.label(h.serviceId) }));
    if (args.booleans.has('json')) return printJson(hits);
    if (hits.length === 0) return console.log('no matches');
    console.log(table(['RUN', 'FILE', 'FIELD', 'MATCH', 'FROM'], hits.map((h) => [h.serviceRunId, h.fileName, h.fieldName ?? h.className, h.snippet, h.origin])));
  } finally {
    store.close();
  }
}

function dayFlag(args: ParsedArgs, flag: 'since' | 'until'): DayBounds | undefined {
  const v = args.flags.get(flag);
  if (v === undefined) return undefined;
  const b = dayBounds(v);
  if (!b) throw new UsageError(`--${flag} must be a day written YYYY-MM-DD, like 2026-11-30; got "${v}"`);
  return b;
}

/** The hot folder `--folder` names (as given or resolved), null for files added by hand. */
function folderFlag(store: Store, v: string): number | null {
  if (v === BY_HAND) return null;
  const want = resolve(v);
  const folder = store.folders.list().find((f) => f.path === v || resolve(f.path) === want);
  if (!folder) {
    const known = store.folders.list().map((f) => f.path);
    throw new UsageError(`"${v}" is not a hot folder${known.length ? `; hot folders: ${known.join(', ')}` : ''} (or --folder "${BY_HAND}")`);
  }
  return folder.id;
}

export async function exportCommand(argv: string[]): Promise<void> {
  const args = parseArgs(argv, { values: ['format', 'out', 'folder', 'since', 'until'], booleans: ['wide'] });
  const selecting = ['folder', 'since', 'until'].some((f) => args.flags.has(f));
  if (selecting && args.positional.length > 0) throw new UsageError('give a run id or --folder/--since/--until, not both');
  if (!selecting && args.positional.length !== 1) throw new UsageError('give one run id (docsync export RUN_ID ...) or choose runs with --folder PATH, --since DAY, --until DAY');
  const format = args.flags.get('format');
  if (format !== 'csv' && format !== 'json') throw new UsageError(`--format must be csv or json${format ? `; got "${format}"` : ''}`);
  if (args.booleans.has('wide') && format !== 'csv') throw new UsageError('--wide is a CSV layout: use it with --format csv');
  const how: ExportFormat = format === 'json' ? 'json' : args.booleans.has('wide') ? 'csv-wide' : 'csv';
  const out = args.flags.get('out');
  if (!out) throw new UsageError('--out FILE is required');
  const since = dayFlag(args, 'since');
  const until = dayFlag(args, 'until');
  if (since && until && until.endMs <= since.startMs) throw new UsageError('--until is before --since');
  const store = openLocalStore();
  try {
    const path = resolve(out);
    let text: string;
    let said: string;
    if (selecting) {
      const folder = args.flags.get('folder');
      const sel = { folderId: folder === undefined ? undefined : folderFlag(store, folder), sinceMs: since?.startMs, untilMs: until?.endMs };
      const got = exportSelection(store, sel, how);
      if (got.runs === 0) throw new UsageError('no run with stored results matches (see: docsync runs)');
      text = got.text;
      said = `${plural(got.files, 'file')} of ${plural(got.runs, 'run')}`;
    } else {
      const run = findRun(store, args.positional[0] as string);
      requireResults(run);
      const got = exportRun(store, run.id, how);
      text = got.text;
      said = `${plural(got.files, 'file')} of run ${run.serviceRunId}`;
    }
    try {
      await writeAtomic(path, text);
    } catch (err) {
      throw new UsageError(`cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    console.log(`wrote ${said} to ${shown(path)}`);
  } finally {
    store.close();
  }
}
