import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { DocumentRow, ResultFileRow } from '../store/index.js';

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

const csvText = (rows: unknown[][]): string => `${rows.map((r) => r.map(cell).join(',')).join('\r\n')}\r\n`;
const runCell = (f: ResultFileRow, runs: RunNames | undefined): unknown[] => (runs ? [runs.get(f.runId) ?? ''] : []);
/** The columns naming a document. `pages` are the service's page_numbers, which count from 1 as people do: written as they are. */
const documentCells = (f: ResultFileRow, d: DocumentRow, i: number): unknown[] => [f.originalFileName, i + 1, d.className, d.pageNumbers.join(' ')];

/** One row per extracted field; documents without fields still get a row. */
export function resultsCsv(files: ResultFileRow[], runs?: RunNames): string {
  const rows: unknown[][] = [[...(runs ? ['run'] : []), ...CSV_COLUMNS]];
  for (const f of files) {
    f.documents.forEach((d, i) => {
      const base = [...runCell(f, runs), ...documentCells(f, d, i)];
      if (d.fields.length === 0) rows.push([...base, '', '', '', '', '', '']);
      for (const x of d.fields) rows.push([...base, x.name, x.value, x.type, x.confidenceModel, x.valid, x.errorMsg]);
    });
  }
  return csvText(rows);
}

/**
 * One row per document and one column per field, as accountants lay results out: the field
 * columns in the order the names first appear, headed by the names as the service sends them. A
 * field a document lacks is an empty cell; a name a document has twice gets both values in its
 * cell, one per line.
 */
export function resultsWideCsv(files: ResultFileRow[], runs?: RunNames): string {
  const names = [...new Set(files.flatMap((f) => f.documents.flatMap((d) => d.fields.map((x) => x.name))))];
  const rows: unknown[][] = [[...(runs ? ['run'] : []), ...DOCUMENT_COLUMNS, ...names]];
  for (const f of files) {
    f.documents.forEach((d, i) => {
      const values = new Map<string, string[]>();
      for (const x of d.fields) values.set(x.name, [...(values.get(x.name) ?? []), x.value ?? '']);
      rows.push([...runCell(f, runs), ...documentCells(f, d, i), ...names.map((n) => values.get(n)?.join('\n') ?? '')]);
    });
  }
  return csvText(rows);
}

/**
 * The stored results in the service's terms: page_numbers from 1, source_coordinates' page_number
 * from 0, alerts with their level and locations as sent, edit history with the time as sent.
 */
export function resultsJson(files: ResultFileRow[], runs?: RunNames): string {
  return JSON.stringify(
    files.map((f) => ({
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
    })),
    null,
    2,
  );
}

/** Writes `<name>.json` and `<name>.csv` for one processed file into a folder's output folder. */
export async function writeFileOutputs(dir: string, originalName: string, files: ResultFileRow[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  const stem = basename(originalName, extname(originalName));
  await writeFile(join(dir, `${stem}.json`), resultsJson(files));
  await writeFile(join(dir, `${stem}.csv`), resultsCsv(files));
}
