/**
 * Case (packet) fields gathered across every document of every file of a run. chosen_field is an
 * object like the items of input_fields (service-shapes.md, "Corrections"): the input the value
 * was taken from, or the first input of a value gathered from several; null when nothing was used.
 * error_msg is absent: these fields report problems as validation failures.
 */
import type { CaseField, CaseInfo, ResultDocument, ResultFile } from '../../shared/service/results.js';
import { CURRENCY, TOTAL_AMOUNT, VENDOR_NAME } from './field-sets.js';
import { fromCents, isAmount, toCents } from './parse.js';

type Failure = { type: string; msg: string };

const value = (doc: ResultDocument, name: string): string | undefined => doc.fields.find((f) => f.field_name === name)?.value;

function caseField(name: string, val: string, inputs: [number, string][], choose: boolean, failures: Failure[] = []): CaseField {
  const input_fields = inputs.map(([record_index, refined_phrase_name]) => ({ record_index, refined_phrase_name }));
  return {
    name,
    value: val,
    input_fields,
    chosen_field: choose && input_fields[0] ? { ...input_fields[0] } : null,
    edit_history: [],
    validations: { valid: failures.length === 0, failures },
  };
}

/** record_index is the position of a document in the list of all documents of all files, in order. */
export function buildCaseInfo(files: ResultFile[]): CaseInfo {
  const docs = files.flatMap((f) => f.documents).map((doc, i) => ({ doc, i }));
  const invoices = docs.filter(({ doc }) => doc.class_name === 'Invoice');
  const receipts = docs.filter(({ doc }) => doc.class_name === 'Receipt');
  const unreadable = docs.filter(({ doc }) => doc.class_name === null);

  return {
    fields: [
      caseField(
        'document_count',
        String(docs.length),
        docs.map(({ i }) => [i, 'class_name']),
        false,
        unreadable.map(({ i, doc }) => ({ type: 'document_error', msg: `record ${i}: ${doc.fields[0]?.error_msg ?? 'document could not be read'}` })),
      ),
      caseField('invoice_count', String(invoices.length), invoices.map(({ i }) => [i, 'class_name']), false),
      caseField('receipt_count', String(receipts.length), receipts.map(({ i }) => [i, 'class_name']), false),
      sumField('total_invoiced', invoices),
      sumField('total_receipts', receipts),
      vendorsField(invoices),
    ],
  };
}

function sumField(name: string, docs: { doc: ResultDocument; i: number }[]): CaseField {
  let cents = 0;
  const used: [number, string][] = [];
  const failures: Failure[] = [];
  const currencies = new Set<string>();
  for (const { doc, i } of docs) {
    const total = value(doc, TOTAL_AMOUNT) ?? '';
    if (!isAmount(total)) {
      failures.push({ type: 'invalid_input', msg: `record ${i}: ${TOTAL_AMOUNT} ${total === '' ? 'is missing' : `"${total}" is not a number`}` });
      continue;
    }
    cents += toCents(total);
    used.push([i, TOTAL_AMOUNT]);
    const cur = value(doc, CURRENCY);
    if (cur) currencies.add(cur);
  }
  if (currencies.size > 1) failures.push({ type: 'mixed_currency', msg: `totals are in several currencies: ${[...currencies].sort().join(', ')}` });
  return caseField(name, fromCents(cents), used, true, failures);
}

function vendorsField(invoices: { doc: ResultDocument; i: number }[]): CaseField {
  const names: string[] = [];
  const used: [number, string][] = [];
  for (const { doc, i } of invoices) {
    const v = value(doc, VENDOR_NAME)?.trim() ?? '';
    if (v === '' || v === 'ERROR') continue;
    used.push([i, VENDOR_NAME]);
    if (!names.includes(v)) names.push(v);
  }
  return caseField('vendors', names.join('; '), used, true);
}
