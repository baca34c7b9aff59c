/**
 * Where invoicePdf prints each field's value, in PDF points with a top-left origin: computed from
 * INVOICE_LAYOUT and the standard fonts' own widths (pdf-lib), independently of the sandbox's reader.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { PDFFont } from 'pdf-lib';
import { BODY_SIZE, INVOICE_LAYOUT, PAGE_HEIGHT } from '../pdf-fixtures.js';
import type { InvoiceOptions } from '../pdf-fixtures.js';
import type { Box } from './geometry.js';

// Helvetica's cap height and descender (AFM: 718 and -207 per 1000).
const ASCENT = 0.718;
const DESCENT = 0.207;

let fonts: Promise<{ regular: PDFFont; bold: PDFFont }> | null = null;

function loadFonts(): Promise<{ regular: PDFFont; bold: PDFFont }> {
  fonts ??= (async () => {
    const doc = await PDFDocument.create();
    return { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) };
  })();
  return fonts;
}

function printed(font: PDFFont, x: number, baseline: number, label: string, value: string): Box {
  const x0 = x + font.widthOfTextAtSize(label, BODY_SIZE);
  const top = PAGE_HEIGHT - baseline;
  return { x0, y0: top - ASCENT * BODY_SIZE, x1: x0 + font.widthOfTextAtSize(value, BODY_SIZE), y1: top + DESCENT * BODY_SIZE };
}

/** Field name (as the sandbox names it) -> box of the printed text it is read from, on page 0. */
export async function valueBoxes(o: InvoiceOptions): Promise<Record<string, Box>> {
  const { regular, bold } = await loadFonts();
  const L = INVOICE_LAYOUT;
  const total = printed(bold, L.amountDue.valueX, L.amountDue.y, '', o.total);
  return {
    invoice_number: printed(regular, L.invoiceNumber.x, L.invoiceNumber.y, 'Invoice Number: ', o.invoiceNumber),
    invoice_date: printed(regular, L.invoiceDate.x, L.invoiceDate.y, 'Invoice Date: ', o.invoiceDate),
    due_date: printed(regular, L.dueDate.x, L.dueDate.y, 'Due Date: ', o.dueDate),
    total_amount: total,
    // Without a "Currency:" line the service names the currency marked on the total.
    currency: o.currency ? printed(regular, L.currency.x, L.currency.y, 'Currency: ', o.currency) : total,
    Vendor_Name: printed(regular, L.vendor.x, L.vendor.y, 'Vendor Name: ', o.vendor),
    _1st_Line_Item: printed(regular, L.columns.description, L.tableRow.y, '', o.lineItem ?? 'Consulting services'),
  };
}

/**
 * Other places a field's value is printed: the total (and the currency marked on it) also stands in
 * the line item's Amount cell. A reader that takes it from there has its box on the value too.
 */
export async function otherBoxes(o: InvoiceOptions): Promise<Record<string, Box[]>> {
  const { regular, bold } = await loadFonts();
  const L = INVOICE_LAYOUT;
  const row = printed(regular, L.columns.amount, L.tableRow.y, '', o.total);
  return { total_amount: [row], currency: o.currency ? [printed(bold, L.amountDue.valueX, L.amountDue.y, '', o.total), row] : [row] };
}
