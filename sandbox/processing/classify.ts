/** Keyword classification of single pages, and grouping of consecutive pages into documents. */
import type { ClassName } from './field-sets.js';
import type { PageText } from './text-model.js';

interface Evidence {
  re: RegExp;
  weight: number;
}

const INVOICE: Evidence[] = [
  { re: /\binvoice\b/i, weight: 2 },
  { re: /\bbill(?:ed)? ?to\b/i, weight: 1 },
  { re: /\b(?:amount|balance|total) ?due\b/i, weight: 1 },
  { re: /\bdue ?date\b|\bpayment ?due\b/i, weight: 1 },
  { re: /\binvoice\s*(?:number|no\b|#)/i, weight: 1 },
  { re: /\b(?:payment terms|net \d+|remit to)\b/i, weight: 1 },
];

const RECEIPT: Evidence[] = [
  { re: /\breceipt\b/i, weight: 2 },
  { re: /\bthank you for (?:your )?(?:purchase|shopping)\b/i, weight: 2 },
  { re: /\bpaid\b/i, weight: 1 },
  { re: /\b(?:payment method|paid (?:by|with)|tendered|change due|cashier)\b/i, weight: 1 },
];

export interface PageClass {
  className: ClassName;
  /** 0..1, from the keyword evidence. */
  confidence: number;
}

const score = (text: string, evidence: Evidence[]): number => evidence.reduce((s, e) => s + (e.re.test(text) ? e.weight : 0), 0);

export function classifyPage(page: PageText): PageClass {
  const text = page.lines.map((l) => l.text).join('\n');
  const inv = score(text, INVOICE);
  const rec = score(text, RECEIPT);
  if (inv === 0 && rec === 0) return { className: 'Other', confidence: page.lines.length > 0 ? 0.6 : 0.5 };
  // Ties go to Invoice: invoices often say "paid" too, receipts rarely say "invoice".
  const [className, win, lose]: [ClassName, number, number] = inv >= rec ? ['Invoice', inv, rec] : ['Receipt', rec, inv];
  const confidence = Math.min(0.99, 0.55 + 0.1 * win - 0.1 * lose);
  return { className, confidence: Math.round(Math.max(0.3, confidence) * 100) / 100 };
}

export interface PageGroup {
  className: ClassName;
  pages: number[];
  confidence: number;
}

/** Consecutive pages of one class form one document. */
export function groupPages(classes: PageClass[]): PageGroup[] {
  const groups: (PageGroup & { sum: number })[] = [];
  classes.forEach((c, page) => {
    const last = groups[groups.length - 1];
    if (last && last.className === c.className) {
      last.pages.push(page);
      last.sum += c.confidence;
    } else {
      groups.push({ className: c.className, pages: [page], confidence: 0, sum: c.confidence });
    }
  });
  return groups.map((g) => ({ className: g.className, pages: g.pages, confidence: Math.round((g.sum / g.pages.length) * 100) / 100 }));
}
