import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { ResultDocument, ResultField } from '../../../shared/service/results.js';
import { buildCaseInfo, processFile, writeDocumentPdf } from '../../../sandbox/processing/index.js';
import type { ProcessedFile } from '../../../sandbox/processing/index.js';
import {
  BODY_SIZE,
  INVOICE_LAYOUT,
  MULTI_CLASS,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  corruptPdf,
  encryptPdf,
  invoicePdf,
  invoiceText,
  multiClassPdf,
  noTextPdf,
  receiptPdf,
} from '../../helpers/pdf-fixtures.js';
import type { InvoiceOptions } from '../../helpers/pdf-fixtures.js';
import { expectErrorDocument, INVOICE_FIELD_NAMES, values } from '../../helpers/processed.js';

const INVOICE: InvoiceOptions = {
  invoiceNumber: 'INV-1001',
  invoiceDate: 'March 1, 2026',
  dueDate: '03/31/2026',
  total: '$1,234.50',
  vendor: 'Acme Supplies Ltd.',
  currency: 'USD',
  lineItem: 'Widget assembly',
};


let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'docsync-processing-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(name: string, bytes: Uint8Array | string): Promise<string> {
  const p = path.join(dir, name);
  await writeFile(p, bytes);
  return p;
}

async function run(name: string, bytes: Uint8Array | string, passwords: Record<string, string> = {}, maxBytes?: number): Promise<ProcessedFile> {
  const p = await put(name, bytes);
  return processFile(p, name, `/input/${name}`, { passwords, ...(maxBytes === undefined ? {} : { maxBytes }) });
}

function field(doc: ResultDocument | undefined, name: string): ResultField {
  const f = doc?.fields.find((x) => x.field_name === name);
  if (!f) throw new Error(`no field ${name}`);
  return f;
}



async function pdfPageCount(p: string): Promise<number> {
  const pdf = await getDocument({ data: new Uint8Array(await readFile(p)), verbosity: 0 }).promise;
  const n = pdf.numPages;
  await pdf.destroy();
  return n;
}

describe('processFile on a PDF invoice', () => {
  it('extracts the known values with normalised names', async () => {
    const file = await run('invoice.pdf', await invoicePdf(INVOICE));
    expect(file.page_count).toBe(1);
    expect(file.original_file_name).toBe('invoice.pdf');
    expect(file.input_file_path).toBe('/input/invoice.pdf');
    expect(file.documents).toHaveLength(1);
    const doc = file.documents[0]!;
    expect(doc.class_name).toBe('Invoice');
    // page_numbers count from 1 (a one-page document is [1]); page_layouts from 0.
    expect(doc.page_numbers).toEqual([1]);
    expect(doc.page_layouts?.map((l) => l.page_number)).toEqual([0]);
    expect(values(doc)).toEqual({
      invoice_number: 'INV-1001',
      invoice_date: '2026-03-01',
      due_date: '2026-03-31',
      total_amount: '1234.50',
      currency: 'USD',
      Vendor_Name: 'Acme Supplies Ltd.',
      _1st_Line_Item: 'Widget assembly',
    });
    expect(field(doc, 'total_amount').type).toBe('NUMBER');
    expect(field(doc, 'invoice_date').type).toBe('DATE');
    expect(field(doc, 'Vendor_Name').type).toBe('TEXT');
    expect(doc.validations?.final_result_pass).toBe(true);
    expect(doc.classification_confidence?.model).toBeGreaterThan(0.5);
    for (const f of doc.fields) {
      expect(f.confidence?.ocr).toBe(1);
      expect(f.confidence?.model).toBeGreaterThan(0);
      expect(f.validations).toEqual({ valid: true, alerts: [] });
      expect(f.edit_history).toEqual([]);
      // Left out when there is no error, as the service does (not null).
      expect(f).not.toHaveProperty('error_msg');
    }
    expect(doc).toMatchObject({ review_completed: false, class_edit_history: [], post_processed_paths: [] });
    // No PDF generated: the path is absent, not null.
    expect(doc).not.toHaveProperty('post_processed_pdf_path');
  });

  it('gives page layouts and top-left coordinates near the drawn text', async () => {
    const doc = (await run('coords.pdf', await invoicePdf(INVOICE))).documents[0]!;
    expect(doc.page_layouts).toEqual([{ page_number: 0, width: PAGE_WIDTH, height: PAGE_HEIGHT }]);
    for (const f of doc.fields) {
      const [box] = f.source_coordinates ?? [];
      expect(box, f.field_name).toBeDefined();
      expect(box!.page_number).toBe(0);
      expect(box!.top_x).toBeGreaterThanOrEqual(0);
      expect(box!.top_y).toBeGreaterThanOrEqual(0);
      expect(box!.bottom_x).toBeLessThanOrEqual(PAGE_WIDTH);
      expect(box!.bottom_y).toBeLessThanOrEqual(PAGE_HEIGHT);
      expect(box!.top_x).toBeLessThan(box!.bottom_x);
      expect(box!.top_y).toBeLessThan(box!.bottom_y);
    }
    // The total is the bold value drawn at the "Amount Due" row.
    const total = field(doc, 'total_amount').source_coordinates![0]!;
    const baselineFromTop = PAGE_HEIGHT - INVOICE_LAYOUT.amountDue.y;
    expect(total.top_x).toBeCloseTo(INVOICE_LAYOUT.amountDue.valueX, 0);
    expect(total.top_y).toBeGreaterThan(baselineFromTop - BODY_SIZE - 1);
    expect(total.bottom_y).toBeGreaterThan(baselineFromTop);
    expect(total.bottom_y).toBeLessThan(baselineFromTop + BODY_SIZE / 2);
    // The invoice number sits after its label on the same text item: the box is narrowed to the value.
    const num = field(doc, 'invoice_number').source_coordinates![0]!;
    expect(num.top_x).toBeGreaterThan(INVOICE_LAYOUT.invoiceNumber.x + 50);
    expect(num.top_y).toBeCloseTo(PAGE_HEIGHT - INVOICE_LAYOUT.invoiceNumber.y - 0.8 * BODY_SIZE, 0);
  });

  it('accepts other date and amount formats and flags a due date before the invoice date', async () => {
    const doc = (
      await run('formats.pdf', await invoicePdf({ ...INVOICE, invoiceDate: '1 March 2026', dueDate: '2026-02-01', total: '1.234,50 EUR', currency: undefined }))
    ).documents[0]!;
    expect(values(doc)).toMatchObject({ invoice_date: '2026-03-01', due_date: '2026-02-01', total_amount: '1234.50', currency: 'EUR' });
    const due = field(doc, 'due_date');
    expect(due.validations?.valid).toBe(false);
    expect(due.validations?.alerts).toEqual([
      { alert_level: 'WARNING', msg: 'due_date 2026-02-01 is before invoice_date 2026-03-01', blocked: false, type: 'consistency', locations: [{ field_name: 'due_date' }] },
    ]);
    // A WARNING does not fail the document.
    expect(doc.validations?.final_result_pass).toBe(true);
  });

  it('reports a total that is not a number as a FAILURE, blocked, with its location as an object', async () => {
    const doc = (await run('tbd.pdf', await invoicePdf({ ...INVOICE, total: 'TBD' }))).documents[0]!;
    const total = field(doc, 'total_amount');
    expect(total.value).toBe('TBD');
    expect(total.validations?.valid).toBe(false);
    expect(total.validations?.alerts[0]).toEqual({ alert_level: 'FAILURE', msg: 'total_amount is not a number: "TBD"', blocked: true, type: 'type', locations: [{ field_name: 'total_amount' }] });
    expect(doc.validations?.final_result_pass).toBe(false);
  });

  it('is deterministic', async () => {
    const bytes = await multiClassPdf();
    const a = await run('det-a.pdf', bytes);
    const b = await run('det-a.pdf', bytes);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });
});

describe('processFile splitting and classes', () => {
  it('splits a two-class file into documents of consecutive pages', async () => {
    const file = await run('multi.pdf', await multiClassPdf());
    expect(file.page_count).toBe(3);
    expect(file.documents.map((d) => [d.class_name, d.page_numbers])).toEqual([
      ['Invoice', [1, 2]],
      ['Receipt', [3]],
    ]);
    const [invoice, receipt] = file.documents;
    expect(values(invoice)).toMatchObject({ invoice_number: 'INV-2001', total_amount: '500.00', Vendor_Name: 'Northwind Traders', _1st_Line_Item: 'Annual license' });
    expect(values(receipt)).toEqual({ merchant: 'Corner Cafe', receipt_date: '2026-03-15', total_amount: '12.75', payment__method: 'VISA' });
    // page_numbers [1, 2] go with page_layouts 0 and 1; the receipt (page_numbers [3]) has its boxes on page index 2.
    expect(invoice!.page_layouts?.map((l) => l.page_number)).toEqual([0, 1]);
    expect(receipt!.page_layouts?.map((l) => l.page_number)).toEqual([2]);
    expect(field(receipt, 'total_amount').source_coordinates?.[0]?.page_number).toBe(2);
  });

  it('reads a receipt', async () => {
    const doc = (await run('r.pdf', await receiptPdf({ merchant: 'Bean There', date: 'April 2, 2026', total: '£4.20', paymentMethod: 'Cash' }))).documents[0]!;
    expect(doc.class_name).toBe('Receipt');
    expect(values(doc)).toEqual({ merchant: 'Bean There', receipt_date: '2026-04-02', total_amount: '4.20', payment__method: 'Cash' });
  });

  it('gives other documents a first_line field', async () => {
    const doc = (await run('note.txt', 'Meeting notes\nNothing to pay here.\n')).documents[0]!;
    expect(doc.class_name).toBe('Other');
    expect(doc.fields).toHaveLength(1);
    expect(field(doc, 'first_line').value).toBe('Meeting notes');
  });
});

describe('processFile on plain text', () => {
  it('reads a text invoice with synthetic coordinates', async () => {
    const file = await run('invoice.txt', invoiceText({ ...INVOICE, extraPages: 1 }));
    expect(file.page_count).toBe(2);
    const doc = file.documents[0]!;
    expect(doc.class_name).toBe('Invoice');
    expect(doc.page_numbers).toEqual([1, 2]);
    expect(values(doc)).toEqual({
      invoice_number: 'INV-1001',
      invoice_date: '2026-03-01',
      due_date: '2026-03-31',
      total_amount: '1234.50',
      currency: 'USD',
      Vendor_Name: 'Acme Supplies Ltd.',
      _1st_Line_Item: 'Widget assembly',
    });
    expect(field(doc, 'invoice_number').confidence?.ocr).toBe(0.99);
    expect(doc.page_layouts?.[0]).toEqual({ page_number: 0, width: 612, height: 792 });
    // "Invoice Number: INV-1001" is line 4 (index 3): the value starts at column 16.
    expect(field(doc, 'invoice_number').source_coordinates).toEqual([{ top_x: 72 + 16 * 6, top_y: 72 + 3 * 12, bottom_x: 72 + 24 * 6, bottom_y: 72 + 4 * 12, page_number: 0 }]);
  });

  it('finds labels whose words ran together (as OCR may read them), but not across a column break', async () => {
    const doc = (await run('joined.txt', 'Acme Ltd\nINVOICE\nInvoiceNumber: A-17\nInvoiceDate: 2026-01-05\nDueDate: 2026-02-04\nAmountDue: $12.00\n')).documents[0]!;
    expect(values(doc)).toMatchObject({ invoice_number: 'A-17', invoice_date: '2026-01-05', due_date: '2026-02-04', total_amount: '12.00' });
    const split = (await run('cells.txt', 'Acme Ltd\nINVOICE\nInvoice Number: A-18\nAmount   Due\n1   $5.00\n')).documents[0]!;
    // "Amount" and "Due" are two cells of a table header, not the label "Amount Due".
    expect(field(split, 'total_amount').value).toBe('');
  });
});

describe('processFile on unreadable input', () => {
  const password = 's3cret';

  it('needs the password of an encrypted PDF, matched by name or name without extension', async () => {
    const bytes = await encryptPdf(await invoicePdf(INVOICE), password);
    const locked = await run('locked.pdf', bytes);
    expectErrorDocument(locked, /^PDF is encrypted and no matching password was given in runtime_config\.svc\.pdf\.passwords$/);
    expect(locked.documents[0]!.page_numbers).toEqual([]);

    const wrong = await run('locked.pdf', bytes, { 'locked.pdf': 'nope' });
    expectErrorDocument(wrong, /password given for "locked\.pdf" .* is incorrect/);

    for (const title of ['locked.pdf', 'locked']) {
      const file = await run('locked.pdf', bytes, { [title]: password });
      expect(file.documents[0]!.class_name).toBe('Invoice');
      expect(values(file.documents[0])).toMatchObject({ invoice_number: 'INV-1001', total_amount: '1234.50' });
    }

    // The message names the deployment's namespace segment, where the passwords are read.
    const other = await processFile(await put('locked-acme.pdf', bytes), 'locked-acme.pdf', '/input/locked-acme.pdf', { passwords: {}, namespace: 'acme' });
    expectErrorDocument(other, /^PDF is encrypted and no matching password was given in runtime_config\.acme\.pdf\.passwords$/);
  });

  it('reports a corrupt PDF', async () => {
    expectErrorDocument(await run('corrupt.pdf', await corruptPdf()), /^file is not a readable PDF: /);
  });

  it('detects a PDF by content, not by extension', async () => {
    expectErrorDocument(await run('corrupt.txt', await corruptPdf()), /^file is not a readable PDF: /);
    expect((await run('invoice.bin', await invoicePdf(INVOICE))).documents[0]!.class_name).toBe('Invoice');
  });

  it('reports a PDF without a text layer, with its pages', async () => {
    const file = await run('scan.pdf', await noTextPdf());
    expectErrorDocument(file, /^no text: OCR found no readable text in the PDF on its page \(blank or unreadable\)$/);
    expect(file.page_count).toBe(1);
    expect(file.documents[0]!.page_numbers).toEqual([1]);
    expect(file.documents[0]!.page_layouts).toEqual([{ page_number: 0, width: 612, height: 792 }]);
  });

  it('reports empty, oversized and binary files', async () => {
    expectErrorDocument(await run('empty.pdf', ''), /^empty file/);
    expectErrorDocument(await run('big.txt', 'x'.repeat(100), {}, 10), /^file too large: 100 bytes/);
    expectErrorDocument(await run('blob.bin', new Uint8Array([0xff, 0xfe, 0x00, 0x81])), /not a PDF, an image \(PNG, JPEG, TIFF\) or UTF-8 text/);
  });

  it('throws for a path that cannot be read', async () => {
    await expect(processFile(path.join(dir, 'missing.pdf'), 'missing.pdf', '/input/missing.pdf', { passwords: {} })).rejects.toThrow();
  });
});

describe('buildCaseInfo', () => {
  it('counts documents, sums valid invoice totals and lists vendors', async () => {
    const a = await run('a.pdf', await invoicePdf(INVOICE));
    const b = await run('b.pdf', await multiClassPdf());
    const c = await run('c.pdf', await corruptPdf());
    const d = await run('d.txt', invoiceText({ ...INVOICE, invoiceNumber: 'INV-1002', total: '$0.55' }));
    const info = buildCaseInfo([a, b, c, d]);
    const get = (name: string) => info.fields.find((f) => f.name === name);
    expect(get('document_count')?.value).toBe('5');
    expect(get('document_count')?.validations?.valid).toBe(false);
    expect(get('invoice_count')?.value).toBe('3');
    expect(get('receipt_count')?.value).toBe('1');
    // 1234.50 + 500.00 + 0.55
    expect(get('total_invoiced')).toEqual({
      name: 'total_invoiced',
      value: '1735.05',
      input_fields: [
        { record_index: 0, refined_phrase_name: 'total_amount' },
        { record_index: 1, refined_phrase_name: 'total_amount' },
        { record_index: 4, refined_phrase_name: 'total_amount' },
      ],
      // An object like the items of input_fields, never a string; error_msg is left out.
      chosen_field: { record_index: 0, refined_phrase_name: 'total_amount' },
      edit_history: [],
      validations: { valid: true, failures: [] },
    });
    expect(get('total_receipts')?.value).toBe('12.75');
    expect(get('vendors')?.value).toBe('Acme Supplies Ltd.; Northwind Traders');
    expect(get('vendors')?.chosen_field).toEqual({ record_index: 0, refined_phrase_name: 'Vendor_Name' });
    expect(get('invoice_count')?.chosen_field).toBeNull();
    for (const f of info.fields) expect(f).not.toHaveProperty('error_msg');
  });
});

describe('writeDocumentPdf', () => {
  it('copies the pages of each document of a PDF', async () => {
    const src = await put('split.pdf', await multiClassPdf());
    const file = await processFile(src, 'split.pdf', '/input/split.pdf', { passwords: {} });
    const counts: number[] = [];
    for (const [i, doc] of file.documents.entries()) {
      const out = path.join(dir, `split-${i}.pdf`);
      await writeDocumentPdf(src, 'split.pdf', doc, out, { passwords: {} });
      counts.push(await pdfPageCount(out));
    }
    expect(counts).toEqual([2, 1]);
    // page_numbers count from 1: the receipt's PDF is page 3 of the source, not page 4 (none) or 2.
    expect(values((await run('receipt-copy.pdf', await readFile(path.join(dir, 'split-1.pdf')))).documents[0])).toMatchObject({ merchant: 'Corner Cafe' });
    expect(values((await run('invoice-copy.pdf', await readFile(path.join(dir, 'split-0.pdf')))).documents[0])).toMatchObject({ invoice_number: 'INV-2001' });
  });

  it('renders the text of a text source and of an encrypted PDF', async () => {
    const txt = await put('multi.txt', invoiceText({ ...INVOICE, extraPages: 2 }));
    const doc = (await processFile(txt, 'multi.txt', '/input/multi.txt', { passwords: {} })).documents[0]!;
    const out = path.join(dir, 'multi-out.pdf');
    await writeDocumentPdf(txt, 'multi.txt', doc, out, { passwords: {} });
    expect(await pdfPageCount(out)).toBe(3);
    // The rendering reads back as the same invoice.
    expect(values((await run('rerendered.pdf', await readFile(out))).documents[0])).toMatchObject({
      invoice_number: 'INV-1001',
      total_amount: '1234.50',
    });

    const enc = await put('enc.pdf', await encryptPdf(await multiClassPdf(), 'pw'));
    const opts = { passwords: { enc: 'pw' } };
    const encDocs = (await processFile(enc, 'enc.pdf', '/input/enc.pdf', opts)).documents;
    const encOut = path.join(dir, 'enc-out.pdf');
    await writeDocumentPdf(enc, 'enc.pdf', encDocs[0]!, encOut, opts);
    expect(await pdfPageCount(encOut)).toBe(2);
  });

  it('writes a page explaining an unreadable source', async () => {
    const src = await put('bad.pdf', await corruptPdf());
    const doc = (await processFile(src, 'bad.pdf', '/input/bad.pdf', { passwords: {} })).documents[0]!;
    const out = path.join(dir, 'bad-out.pdf');
    await writeDocumentPdf(src, 'bad.pdf', doc, out, { passwords: {} });
    expect(await pdfPageCount(out)).toBe(1);
  });
});
