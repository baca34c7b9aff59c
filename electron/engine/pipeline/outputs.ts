import { writeFile } from 'node:fs/promises';
import { asUserChose, mkdirAsUserChose } from '../config/private-files.js';
import { basename, extname, join } from 'node:path';
import type { CaseFieldRow, DocumentRow, ResultFileRow } from '../store/index.js';

const CSV_COLUMNS = ['file', 'document', 'class', 'pages', 'field', 'value', 'type', 'confidence', 'valid', 'error'] as const;
const DOCUMENT_COLUMNS = ['file', 'document', 'class', 'pages'] as const;

function cell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The service run id of each local run, for exports of several runs: every row then starts with a
 * `run` column (and each JSON file has a `run` key). Without it the export is of one run, as before.
 */
export type RunNames = ReadonlyMap<number, string>;

/**
 * The case fields of each run (by local run id): what the service worked out over all of a run's
 * documents (counts, totals). In exports they are rows of scope "case" (long CSV), columns headed
 * "case: NAME" on each of the run's documents (wide CSV), or `case_fields` (JSON). A processed
 * file's own outputs (writeFileOutputs) have none: they are one file's, not the run's.
 */
export type RunCases = ReadonlyMap<number, CaseFieldRow[]>;

/** What is wrong with a case field, in one cell: its error, then the service's reasons it is not valid. */
const caseProblem = (c: CaseFieldRow): string =>
  [c.errorMsg, ...c.failures.map((f) => f.msg ?? f.type)].filter(Boolean).join('; ');

/** The runs in the order their files come, then those with case fields but no files. */
function runOrder(files: ResultFileRow[], cases: RunCases): number[] {
  return [...new Set([...files.map((f) => f.runId), ...cases.keys()])];
}

const csvText = (rows: unknown[][]): string => `${rows.map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
const runCell = (f: ResultFileRow, runs: RunNames | undefined): unknown[] => (runs ? [runs.get(f.runId) ?? ''] : []);
/** The columns naming a document. `pages` are the service's page_numbers, which count from 1 as people do: written as they are. */
const documentCells = (f: ResultFileRow, d: DocumentRow, i: number): unknown[] => [f.originalFileName, i + 1, d.className, d.pageNumbers.join(' ')];

/**
 * One row per extracted field; documents without fields still get a row. With `cases` each row
 * says its scope ("document" or "case") and each run's case fields follow its documents' rows.
 */
export function resultsCsv(files: ResultFileRow[], runs?: RunNames, cases?: RunCases): string {
  const scope = (s: string): unknown[] => (cases ? [s] : []);
  const rows: unknown[][] = [[...(runs ? ['run'] : []), ...scope('scope'), ...CSV_COLUMNS]];
  for (const runId of cases ? runOrder(files, cases) : [null]) {
    for (const f of runId === null ? files : files.filter((x) => x.runId === runId)) {
      f.documents.forEach((d, i) => {
        const base = [...runCell(f, runs), ...scope('document'), ...documentCells(f, d, i)];
        if (d.fields.length === 0) rows.push([...base, '', '', '', '', '', '']);
        for (const x of d.fields) rows.push([...base, x.name, x.value, x.type, x.confidenceModel, x.valid, x.errorMsg]);
      });
    }
    const run = runs && runId !== null ? [runs.get(runId) ?? ''] : [];
    for (const c of runId === null ? [] : cases?.get(runId) ?? []) rows.push([...run, 'case', '', '', '', '', c.name, c.value, '', '', c.valid, caseProblem(c)]);
  }
  return csvText(rows);
}

/**
 * One row per document and one column per field, as accountants lay results out: the field
 * columns in the order the names first appear, headed by the names as the service sends them. A
 * field a document lacks is an empty cell; a name a document has twice gets both values in its
 * cell, one per line. With `cases`, the run's case fields follow as columns headed "case: NAME",
 * repeated on each of its documents so that a filtered or sorted sheet keeps them.
 */
export function resultsWideCsv(files: ResultFileRow[], runs?: RunNames, cases?: RunCases): string {
  const names = [...new Set(files.flatMap((f) => f.documents.flatMap((d) => d.fields.map((x) => x.name))))];
  const caseNames = [...new Set([...(cases?.values() ?? [])].flatMap((cs) => cs.map((c) => c.name)))];
  const byName = <T extends { name: string; value: string | null }>(xs: T[]): Map<string, string[]> => {
    const m = new Map<string, string[]>();
    for (const x of xs) m.set(x.name, [...(m.get(x.name) ?? []), x.value ?? '']);
    return m;
  };
  const caseValues = new Map([...(cases ?? new Map<number, CaseFieldRow[]>())].map(([runId, cs]) => [runId, byName(cs)]));
  const rows: unknown[][] = [[...(runs ? ['run'] : []), ...DOCUMENT_COLUMNS, ...names, ...caseNames.map((n) => `case: ${n}`)]];
  for (const f of files) {
    const ofCase = caseValues.get(f.runId);
    f.documents.forEach((d, i) => {
      const values = byName(d.fields);
      rows.push([...runCell(f, runs), ...documentCells(f, d, i), ...names.map((n) => values.get(n)?.join('\n') ?? ''), ...caseNames.map((n) => ofCase?.get(n)?.join('\n') ?? '')]);
    });
  }
  return csvText(rows);
}

/**
 * The stored results in the service's terms: page_numbers from 1, source_coordinates' page_number
 * from 0, alerts with their level and locations as sent, edit history with the time as sent. A
 * list of files; with `cases`, an object of `files` and `case_fields` (each naming its run when
 * `runs` is given).
 */
export function resultsJson(files: ResultFileRow[], runs?: RunNames, cases?: RunCases): string {
  const shown = files.map((f) => ({
    ...(runs ? { run: runs.get(f.runId) ?? null } : {}),
    file: f.originalFileName,
    input_file_path: f.inputFilePath,
    documents: f.documents.map((d) => ({
      class_name: d.className,
      page_numbers: d.pageNumbers,
      final_result_pass: d.finalResultPass,
      post_processed_pdf_path: d.postProcessedPdfPath,
      fields: d.fields.map((x) => ({
        name: x.name, value: x.value, type: x.type, error_msg: x.errorMsg,
        confidence: x.confidenceModel, valid: x.valid, alerts: x.alerts, source_coordinates: x.sourceCoordinates, edit_history: x.editHistory,
      })),
    })),
  }));
  if (!cases) return JSON.stringify(shown, null, 2);
  const caseFields = runOrder(files, cases).flatMap((runId) => (cases.get(runId) ?? []).map((c) => ({
    ...(runs ? { run: runs.get(runId) ?? null } : {}),
    name: c.name, value: c.value, error_msg: c.errorMsg, valid: c.valid, failures: c.failures, chosen_field: c.chosenField, input_fields: c.inputFields,
  })));
  return JSON.stringify({ files: shown, case_fields: caseFields }, null, 2);
}

/** Writes `<name>.json` and `<name>.csv` for one processed file into a folder's output folder. */
export async function writeFileOutputs(dir: string, originalName: string, files: ResultFileRow[]): Promise<void> {
  // The output folder is the user's choice: its files get the user's own modes (private-files.ts).
  await mkdirAsUserChose(dir);
  const stem = basename(originalName, extname(originalName));
  for (const [ext, text] of [['json', resultsJson(files)], ['csv', resultsCsv(files)]] as const) {
    await writeFile(join(dir, `${stem}.${ext}`), text);
    await asUserChose(join(dir, `${stem}.${ext}`), 'file');
  }
}
