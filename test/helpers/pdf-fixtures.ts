/**
 * Real PDFs (and text) for the sandbox processing tests, drawn with pdf-lib's standard fonts so that
 * pdfjs reads the text back. Positions are exported so tests can check coordinates.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import type { PDFFont, PDFPage } from 'pdf-lib';

export const PAGE_WIDTH = 612;
export const PAGE_HEIGHT = 792;
export const BODY_SIZE = 11;

/** Where invoicePdf draws things, in PDF user space (x of the text start, y of the baseline). */
export const INVOICE_LAYOUT = {
  title: { x: 72, y: 720 },
  vendor: { x: 72, y: 690 },
  invoiceNumber: { x: 72, y: 672 },
  invoiceDate: { x: 72, y: 656 },
  dueDate: { x: 72, y: 640 },
  currency: { x: 72, y: 624 },
  billTo: { x: 72, y: 600 },
  tableHeader: { y: 560 },
  tableRow: { y: 544 },
  columns: { description: 72, qty: 360, amount: 460 },
  amountDue: { labelX: 360, valueX: 460, y: 500 },
} as const;

export interface InvoiceOptions {
  invoiceNumber: string;
  /** As printed, e.g. "March 1, 2026". */
  invoiceDate: string;
  dueDate: string;
  /** As printed, e.g. "$1,234.50". */
  total: string;
  vendor: string;
  /** Printed as "Currency: XXX" when given. */
  currency?: string;
  lineItem?: string;
  /** Continuation pages after the first ("Invoice ... (continued)"). */
  extraPages?: number;
}

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

async function newDoc(): Promise<{ doc: PDFDocument; fonts: Fonts }> {
  // updateMetadata: false keeps dates out, so equal inputs give equal bytes.
  const doc = await PDFDocument.create({ updateMetadata: false });
  return {
    doc,
    fonts: { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) },
  };
}

const save = async (doc: PDFDocument): Promise<Buffer> => Buffer.from(await doc.save());

function text(page: PDFPage, font: PDFFont, s: string, x: number, y: number, size = BODY_SIZE): void {
  page.drawText(s, { x, y, size, font });
}

function drawInvoicePage(doc: PDFDocument, fonts: Fonts, o: InvoiceOptions): void {
  const L = INVOICE_LAYOUT;
  const page = doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  text(page, fonts.bold, 'INVOICE', L.title.x, L.title.y, 20);
  text(page, fonts.regular, `Vendor Name: ${o.vendor}`, L.vendor.x, L.vendor.y);
  text(page, fonts.regular, `Invoice Number: ${o.invoiceNumber}`, L.invoiceNumber.x, L.invoiceNumber.y);
  text(page, fonts.regular, `Invoice Date: ${o.invoiceDate}`, L.invoiceDate.x, L.invoiceDate.y);
  text(page, fonts.regular, `Due Date: ${o.dueDate}`, L.dueDate.x, L.dueDate.y);
  if (o.currency) text(page, fonts.regular, `Currency: ${o.currency}`, L.currency.x, L.currency.y);
  text(page, fonts.regular, 'Bill To: Example Customer Inc.', L.billTo.x, L.billTo.y);
  text(page, fonts.bold, 'Description', L.columns.description, L.tableHeader.y);
  text(page, fonts.bold, 'Qty', L.columns.qty, L.tableHeader.y);
  text(page, fonts.bold, 'Amount', L.columns.amount, L.tableHeader.y);
  text(page, fonts.regular, o.lineItem ?? 'Consulting services', L.columns.description, L.tableRow.y);
  text(page, fonts.regular, '1', L.columns.qty, L.tableRow.y);
  text(page, fonts.regular, o.total, L.columns.amount, L.tableRow.y);
  text(page, fonts.bold, 'Amount Due:', L.amountDue.labelX, L.amountDue.y);
  text(page, fonts.bold, o.total, L.amountDue.valueX, L.amountDue.y);
}

function drawContinuationPage(doc: PDFDocument, fonts: Fonts, invoiceNumber: string, n: number): void {
  const page = doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  text(page, fonts.bold, `Invoice ${invoiceNumber} (continued)`, 72, 720, 14);
  text(page, fonts.regular, `Page ${n}: terms and conditions apply.`, 72, 690);
}

export async function invoicePdf(o: InvoiceOptions): Promise<Buffer> {
  const { doc, fonts } = await newDoc();
  drawInvoicePage(doc, fonts, o);
  for (let i = 0; i < (o.extraPages ?? 0); i++) drawContinuationPage(doc, fonts, o.invoiceNumber, i + 2);
  return save(doc);
}

export interface ReceiptOptions {
  merchant: string;
  /** As printed. */
  date: string;
  /** As printed, e.g. "$12.75". */
  total: string;
  paymentMethod: string;
}

function drawReceiptPage(doc: PDFDocument, fonts: Fonts, o: ReceiptOptions): void {
  const page = doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  text(page, fonts.bold, 'RECEIPT', 72, 720, 20);
  text(page, fonts.regular, `Store: ${o.merchant}`, 72, 690);
  text(page, fonts.regular, `Date: ${o.date}`, 72, 674);
  text(page, fonts.regular, 'Coffee', 72, 640);
  text(page, fonts.regular, o.total, 360, 640);
  text(page, fonts.bold, 'Total Paid:', 72, 610);
  text(page, fonts.bold, o.total, 360, 610);
  text(page, fonts.regular, `Payment Method: ${o.paymentMethod}`, 72, 590);
  text(page, fonts.regular, 'Thank you for your purchase!', 72, 560);
}

export async function receiptPdf(o: ReceiptOptions): Promise<Buffer> {
  const { doc, fonts } = await newDoc();
  drawReceiptPage(doc, fonts, o);
  return save(doc);
}

/** Known values of multiClassPdf: pages 0-1 are one invoice, page 2 a receipt. */
export const MULTI_CLASS = {
  invoice: {
    invoiceNumber: 'INV-2001',
    invoiceDate: '2026-02-10',
    dueDate: '2026-03-12',
    total: '$500.00',
    vendor: 'Northwind Traders',
    lineItem: 'Annual license',
  },
  receipt: { merchant: 'Corner Cafe', date: '03/15/2026', total: '$12.75', paymentMethod: 'VISA' },
} as const;

export async function multiClassPdf(): Promise<Buffer> {
  const { doc, fonts } = await newDoc();
  drawInvoicePage(doc, fonts, MULTI_CLASS.invoice);
  drawContinuationPage(doc, fonts, MULTI_CLASS.invoice.invoiceNumber, 2);
  drawReceiptPage(doc, fonts, MULTI_CLASS.receipt);
  return save(doc);
}

/**
 * Where coverInvoiceReceiptPdf draws its page marks (PDF user space, origin bottom-left): a dark
 * block on the cover (page 1) and a mid-grey one on the receipt (page 3), where the invoice (page
 * 2) has nothing; a test that reads the rendered page there tells which page is shown.
 */
export const PAGE_MARKS = { x: 72, y: 90, width: 468, height: 150, cover: 0.1, receipt: 0.55 } as const;

/**
 * Three pages, three documents: a cover letter (Other, page 1), an invoice (page 2, MULTI_CLASS's
 * invoice at INVOICE_LAYOUT) and a receipt (page 3). The service's page_numbers are [1], [2], [3];
 * the invoice's source boxes are on page index 1.
 */
export async function coverInvoiceReceiptPdf(): Promise<Buffer> {
  const { doc, fonts } = await newDoc();
  const cover = doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  text(cover, fonts.bold, 'Northwind Traders', 72, 720, 20);
  text(cover, fonts.regular, 'Dear customer,', 72, 680);
  text(cover, fonts.regular, 'please find our documents for March enclosed.', 72, 664);
  const M = PAGE_MARKS;
  cover.drawRectangle({ x: M.x, y: M.y, width: M.width, height: M.height, color: rgb(M.cover, M.cover, M.cover) });
  drawInvoicePage(doc, fonts, MULTI_CLASS.invoice);
  drawReceiptPage(doc, fonts, MULTI_CLASS.receipt);
  doc.getPage(2).drawRectangle({ x: M.x, y: M.y, width: M.width, height: M.height, color: rgb(M.receipt, M.receipt, M.receipt) });
  return save(doc);
}

/** A PDF with a drawing and no text layer (like a scan without OCR). */
export async function noTextPdf(): Promise<Buffer> {
  const { doc } = await newDoc();
  doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]).drawRectangle({ x: 72, y: 500, width: 300, height: 200, borderColor: rgb(0, 0, 0), borderWidth: 2 });
  return save(doc);
}

/** A PDF header followed by a truncated object graph: no xref, no trailer, no complete page tree. */
export async function corruptPdf(): Promise<Buffer> {
  return Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R', 'latin1');
}

/** AES-256 encryption with the qpdf CLI (owner password = user password + "-owner"). */
export async function encryptPdf(bytes: Uint8Array, password: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'docsync-encrypt-'));
  try {
    const src = path.join(dir, 'in.pdf');
    const out = path.join(dir, 'out.pdf');
    await writeFile(src, bytes);
    await promisify(execFile)('qpdf', ['--encrypt', password, `${password}-owner`, '256', '--', src, out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A plain-text invoice; table cells are separated by runs of spaces. */
export function invoiceText(o: InvoiceOptions): string {
  const item = o.lineItem ?? 'Consulting services';
  const lines = [
    'INVOICE',
    '',
    `Vendor Name: ${o.vendor}`,
    `Invoice Number: ${o.invoiceNumber}`,
    `Invoice Date: ${o.invoiceDate}`,
    `Due Date: ${o.dueDate}`,
    ...(o.currency ? [`Currency: ${o.currency}`] : []),
    'Bill To: Example Customer Inc.',
    '',
    `${'Description'.padEnd(32)}${'Qty'.padEnd(8)}Amount`,
    `${item.padEnd(32)}${'1'.padEnd(8)}${o.total}`,
    '',
    `${''.padEnd(32)}Amount Due: ${o.total}`,
  ];
  const pages = [lines.join('\n')];
  for (let i = 0; i < (o.extraPages ?? 0); i++) pages.push(`Invoice ${o.invoiceNumber} (continued)\nPage ${i + 2}: terms and conditions apply.`);
  return `${pages.join('\n\f')}\n`;
}

/** Invoice number n as the engine tests drop it: INV-n, total n.50, from Vendor n. */
export const numberedInvoice = (n: number): Promise<Buffer> =>
  invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: `${n}.50`, vendor: `Vendor ${n}` });
