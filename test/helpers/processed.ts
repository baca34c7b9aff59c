/** Checks shared by the sandbox's processing tests (text and OCR) on what processFile returns. */
import { expect } from 'vitest';
import type { ProcessedFile } from '../../sandbox/processing/index.js';
import type { ResultDocument } from '../../shared/service/results.js';

export const INVOICE_FIELD_NAMES = ['invoice_number', 'invoice_date', 'due_date', 'total_amount', 'currency', 'Vendor_Name', '_1st_Line_Item'];

/** A document's fields by name: value. */
export const values = (doc: ResultDocument | undefined): Record<string, string> => Object.fromEntries((doc?.fields ?? []).map((f) => [f.field_name, f.value]));

/** An unreadable file: one unclassified document, every invoice field ERROR with `msg`, nothing valid. */
export function expectErrorDocument(file: ProcessedFile, msg: RegExp): ResultDocument {
  expect(file.documents).toHaveLength(1);
  const doc = file.documents[0]!;
  expect(doc.class_name).toBeNull();
  expect(doc.fields.map((f) => f.field_name)).toEqual(INVOICE_FIELD_NAMES);
  for (const f of doc.fields) {
    expect(f.value).toBe('ERROR');
    expect(f.error_msg).toMatch(msg);
    expect(f.validations?.valid).toBe(false);
  }
  expect(doc.validations?.final_result_pass).toBe(false);
  return doc;
}
