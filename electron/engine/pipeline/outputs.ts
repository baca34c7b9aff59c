import { mkdir, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { ResultFileRow } from '../store/index.js';

const CSV_COLUMNS = ['file', 'document', 'class', 'pages', 'field', 'value', 'type', 'confidence', 'valid', 'error'] as const;

function cell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * One row per extracted field; documents without fields still get a row. `pages` are the
 * service's page_numbers, which count from 1 as people do: written as they are.
 */
export function resultsCsv(files: ResultFileRow[]): string {
  const rows: string[] = [CSV_COLUMNS.join(',')];
  for (const f of files) {
    f.documents.forEach((d, i) => {
      const base = [f.originalFileName, i + 1, d.className, d.pageNumbers.join(' ')];
      if (d.fields.length === 0) rows.push([...base, '', '', '', '', '', ''].map(cell).join(','));
      for (const x of d.fields) {
        rows.push([...base, x.name, x.value, x.type, x.confidenceModel, x.valid, x.errorMsg].map(cell).join(','));
      }
    });
  }
  return `${rows.join('\r\n')}\r\n`;
}

/**
 * The stored results in the service's terms: page_numbers from 1, source_coordinates' page_number
 * from 0, alerts with their level and locations as sent, edit history with the time as sent.
 */
export function resultsJson(files: ResultFileRow[]): string {
  return JSON.stringify(
    files.map((f) => ({
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
