/** Results from the local store (offline): show, search, export. */
import { resolve } from 'node:path';
import { resultsCsv, resultsJson } from '../../engine/pipeline/outputs.js';
import type { RunRow, Store } from '../../engine/store/index.js';
import { parseArgs, UsageError } from '../args.js';
import { openLocalStore } from '../local.js';
import { printJson, table, writeAtomic } from '../output.js';

export const RESULTS_HELP = `docsync results [RUN_ID] [--json]
  The stored results of a run (RUN_ID: the service's run id; default: the latest run with results),
  and the service that processed it.`;
export const SEARCH_HELP = `docsync search QUERY [--json]
  Full-text search over stored field values, field names, class names and file names; each hit
  says which run, and which service (FROM), it came from.`;
export const EXPORT_HELP = `docsync export RUN_ID --format csv|json --out FILE
  Writes a run's stored results to FILE (atomically: never half a file).`;

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
    console.log(`run ${run.serviceRunId} ${run.status ?? ''}${origin ? ` from ${origin}` : ''}: ${files.length} file(s)`);
    for (const f of files) {
      f.documents.forEach((d, i) => {
        console.log(`\n${f.originalFileName ?? f.inputFilePath ?? '?'} - document ${i + 1} (${d.className ?? 'unclassified'}, pages ${d.pageNumbers.join(' ')})`);
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

export async function exportCommand(argv: string[]): Promise<void> {
  const args = parseArgs(argv, { values: ['format', 'out'] });
  if (args.positional.length !== 1) throw new UsageError('give one run id: docsync export RUN_ID --format csv|json --out FILE');
  const format = args.flags.get('format');
  if (format !== 'csv' && format !== 'json') throw new UsageError(`--format must be csv or json${format ? `; got "${format}"` : ''}`);
  const out = args.flags.get('out');
  if (!out) throw new UsageError('--out FILE is required');
  const store = openLocalStore();
  try {
    const run = findRun(store, args.positional[0] as string);
    requireResults(run);
    const files = store.results.filesOfRun(run.id);
    const path = resolve(out);
    try {
      await writeAtomic(path, format === 'csv' ? resultsCsv(files) : `${resultsJson(files)}\n`);
    } catch (err) {
      throw new UsageError(`cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    console.log(`wrote ${files.length} file(s) of run ${run.serviceRunId} to ${path}`);
  } finally {
    store.close();
  }
}
