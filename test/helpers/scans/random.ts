/**
 * A seeded random generator and varied invoice content, so a scan set is the same on every run.
 */
import { seededRandom } from '../../../shared/seeded-random.js';
import type { InvoiceOptions } from '../pdf-fixtures.js';

export type Random = () => number;

export const seeded: (seed: number) => Random = seededRandom;

/** A stable 32-bit seed from a string (FNV-1a). */
export function seedOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const VENDORS = [
  'Acme Supplies Ltd.', 'Northwind Traders', 'Globex Corporation', 'Initech LLC', 'Blue River Printing',
  'Contoso Catering', 'Fabrikam Tools Inc.', 'Harbor Freight Lines', 'Summit Office Goods', 'Redwood Legal Partners',
  'Pinecrest Cleaning Co.', 'Orion Data Systems',
];
const ITEMS = [
  'Consulting services', 'Widget assembly', 'Annual license', 'Office chairs', 'Printer toner',
  'Website hosting', 'Catering for meeting', 'Legal advice', 'Freight charges', 'Cleaning services',
];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** A date printed in one of the forms invoices use; `form` picks which. */
export function printDate(d: Date, form: number): string {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const day = d.getUTCDate();
  switch (form % 5) {
    case 0: return `${MONTH_NAMES[m - 1]} ${day}, ${y}`;
    case 1: return `${pad2(m)}/${pad2(day)}/${y}`;
    case 2: return `${y}-${pad2(m)}-${pad2(day)}`;
    case 3: return `${day} ${MONTH_NAMES[m - 1]} ${y}`;
    default: return `${pad2(day)}.${pad2(m)}.${y}`;
  }
}

const group3 = (n: number, sep: string): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, sep);

/** An amount with its currency mark, as printed, and the currency it names. */
function printTotal(r: Random): { total: string; code: string } {
  const cents = int(r, 1_000, 2_500_000);
  const whole = Math.floor(cents / 100);
  const frac = pad2(cents % 100);
  switch (int(r, 0, 4)) {
    case 0: return { total: `$${group3(whole, ',')}.${frac}`, code: 'USD' };
    case 1: return { total: `${group3(whole, '.')},${frac} EUR`, code: 'EUR' };
    case 2: return { total: `£${group3(whole, ',')}.${frac}`, code: 'GBP' };
    case 3: return { total: `${group3(whole, ',')}.${frac} USD`, code: 'USD' };
    default: return { total: `€${group3(whole, ',')}.${frac}`, code: 'EUR' };
  }
}

function invoiceNumber(r: Random): string {
  switch (int(r, 0, 3)) {
    case 0: return `INV-${int(r, 1000, 99999)}`;
    case 1: return `${int(r, 2024, 2026)}-${String(int(r, 1, 9999)).padStart(4, '0')}`;
    case 2: return `PO-${int(r, 10000, 99999)}`;
    default: return `F${int(r, 100000, 999999)}`;
  }
}

/** Varied invoice content from a random generator; about half print a "Currency:" line. */
export function randomInvoice(r: Random): InvoiceOptions {
  const issued = new Date(Date.UTC(int(r, 2024, 2026), int(r, 0, 11), int(r, 1, 28)));
  const due = new Date(issued.getTime() + pick(r, [14, 30, 45, 60]) * 86_400_000);
  const form = int(r, 0, 4);
  const { total, code } = printTotal(r);
  return {
    invoiceNumber: invoiceNumber(r),
    invoiceDate: printDate(issued, form),
    dueDate: printDate(due, form),
    total,
    vendor: pick(r, VENDORS),
    ...(r() < 0.5 ? { currency: code } : {}),
    lineItem: pick(r, ITEMS),
  };
}
