/**
 * Rule-based field extraction. Each field tries rules strongest first; the rule that found the value
 * sets the model confidence, so a value read by a fallback rule is reported as less certain.
 */
import { FIELD_SETS } from './field-sets.js';
import type { ClassName, FieldSpec } from './field-sets.js';
import { cells, docLines, hit, labelled, subHit } from './lookup.js';
import type { DocLines, Hit, LabelHit } from './lookup.js';
import { CURRENCY_CODES, CURRENCY_SYMBOLS, findAmount, findDate } from './parse.js';
import type { PageText } from './text-model.js';

export interface Extracted {
  spec: FieldSpec;
  /** "" when not found. */
  value: string;
  /** 0 when not found. */
  model: number;
  at: Hit | null;
}

type Found = { value: string; model: number; at: Hit } | null;

/** Confidence lost when a value sits below or beside its label rather than after it. */
const PLACEMENT_PENALTY: Record<LabelHit['where'], number> = { same: 0, right: 0.05, below: 0.1 };

const round2 = (n: number): number => Math.round(n * 100) / 100;

function text(l: LabelHit, model: number, token?: RegExp): Found {
  const at = token ? tokenOf(l.value, token) : l.value;
  return at ? { value: at.text, model: round2(model - PLACEMENT_PENALTY[l.where]), at } : null;
}

function tokenOf(h: Hit, token: RegExp): Hit | null {
  const m = token.exec(h.text);
  return m ? subHit(h, m.index, m.index + m[0].length) : null;
}

/** First labelled date. */
function dateAfter(lines: DocLines, label: RegExp, model: number): Found {
  for (const l of labelled(lines, label)) {
    const d = findDate(l.value.text);
    const at = d && subHit(l.value, d.index, d.index + d.length);
    if (d && at) return { value: d.value, model: round2(model - PLACEMENT_PENALTY[l.where]), at };
  }
  return null;
}

/**
 * The text beside the first of `labels` found, when no rule found a value of the right type: the
 * value is reported (and fails validation) rather than silently dropped.
 */
function rawAfter(lines: DocLines, ...labels: RegExp[]): Found {
  for (const label of labels) {
    const l = labelled(lines, label).find((c) => c.where !== 'below');
    if (l) return text(l, 0.3);
  }
  return null;
}

function anyDate(lines: DocLines, model: number, skip: Hit | null = null): Found {
  for (const { page, line } of lines) {
    let from = 0;
    for (;;) {
      const d = findDate(line.text.slice(from));
      if (!d) break;
      const start = from + d.index;
      from = start + d.length;
      if (skip && skip.line === line && start < skip.end && from > skip.start) continue;
      return { value: d.value, model, at: hit(page, line, start, from) };
    }
  }
  return null;
}

interface AmountFound {
  found: Found;
  currency: string | null;
}

/** Labelled amount: the first (or last) label with an amount. */
function amountAfter(lines: DocLines, label: RegExp, model: number, pick: 'first' | 'last'): AmountFound | null {
  const hits = labelled(lines, label);
  for (const l of pick === 'last' ? [...hits].reverse() : hits) {
    const a = findAmount(l.value.text);
    const at = a && subHit(l.value, a.index, a.index + a.length);
    if (a && at) return { found: { value: a.value, model: round2(model - PLACEMENT_PENALTY[l.where]), at }, currency: a.currency };
  }
  return null;
}

const KEYWORD_LINE = /\b(?:invoice|receipt|bill to|date|total|due|page \d)\b|:/i;

/** The letterhead: first cell of the first line that is not a label, keyword, date or amount. */
function letterhead(lines: DocLines, model: number): Found {
  for (const { page, line } of lines) {
    const first = cells(page, line)[0];
    if (!first || KEYWORD_LINE.test(first.text) || !/[A-Za-z]{2}/.test(first.text)) continue;
    if (findDate(first.text) || /^\W*\d/.test(first.text)) continue;
    return { value: first.text, model, at: first };
  }
  return null;
}

const first = (...rules: (() => Found)[]): Found => {
  for (const rule of rules) {
    const f = rule();
    if (f) return f;
  }
  return null;
};

const INVOICE_NO_TOKEN = /[A-Za-z0-9][A-Za-z0-9\-/._]*[A-Za-z0-9]|[A-Za-z0-9]/;
// OCR may run label words together ("AmountDue:"), hence " ?" between them (never across a tab: a column break).
const TOTAL_STRONG = /\b(?:amount ?due|balance ?due|total ?due|grand ?total|invoice ?total|total ?amount(?: ?due)?|amount ?payable|total ?payable)\b/i;
const TOTAL_ANY = /(?<!sub[\s-]?)\btotal\b/i;

function invoiceFields(lines: DocLines): Map<string, Found> {
  const dueLabel = /\b(?:due ?date|payment ?due(?: ?date)?|date ?due|due ?by|due ?on|pay ?by)\b/i;
  const due = dateAfter(lines, dueLabel, 0.95) ?? rawAfter(lines, dueLabel);
  const total = amountAfter(lines, TOTAL_STRONG, 0.95, 'first') ?? amountAfter(lines, TOTAL_ANY, 0.8, 'last');
  const issuedLabel = /\b(?:invoice ?date|date ?of ?issue|issue ?date|date ?issued|invoice ?dated|billing ?date)\b/i;
  const m = new Map<string, Found>();
  m.set(
    'invoice number',
    first(
      () => firstText(lines, /\binvoice\s*(?:number|num\b\.?|no\b\.?|#|id\b)/i, 0.95, INVOICE_NO_TOKEN),
      () => firstText(lines, /\binvoice\b(?=\s+[A-Za-z0-9-]*\d)/i, 0.6, INVOICE_NO_TOKEN),
      () => firstText(lines, /\b(?:reference|ref\.?|document)\s*(?:no\.?|number|#)?\s*:/i, 0.5, INVOICE_NO_TOKEN),
    ),
  );
  m.set(
    'invoice date',
    first(
      () => dateAfter(lines, issuedLabel, 0.95),
      () => dateAfter(lines, /(?<!\bdue\s)\bdate\b(?=\s*:)/i, 0.8),
      () => anyDate(lines, 0.4, due?.at ?? null),
      () => rawAfter(lines, issuedLabel),
    ),
  );
  m.set('due date', due);
  m.set('total amount', total?.found ?? rawAfter(lines, TOTAL_STRONG, TOTAL_ANY));
  m.set('currency', currency(lines, total));
  m.set(
    'Vendor Name',
    first(
      () => firstText(lines, /\b(?:vendor(?:\s+name)?|supplier|seller|sold ?by|from|company|issued ?by|payee)(?=\s*:)/i, 0.9),
      () => letterhead(lines, 0.5),
    ),
  );
  m.set(
    '1st Line Item',
    first(
      () => firstText(lines, /\b(?:1st line item|line item 1|item 1|first item)\b(?=\s*:)/i, 0.9),
      () => firstRowUnderHeader(lines, 0.8),
    ),
  );
  return m;
}

function firstText(lines: DocLines, label: RegExp, model: number, token?: RegExp): Found {
  for (const l of labelled(lines, label)) {
    const f = text(l, model, token);
    if (f) return f;
  }
  return null;
}

function currency(lines: DocLines, total: AmountFound | null): Found {
  const codes = new RegExp(`\\b(?:${CURRENCY_CODES.join('|')})\\b`);
  for (const l of labelled(lines, /\bcurrency\b/i)) {
    const code = tokenOf(l.value, codes);
    if (code) return { value: code.text, model: 0.95, at: code };
    const symbol = tokenOf(l.value, /[$€£¥]/);
    if (symbol) return { value: CURRENCY_SYMBOLS[symbol.text] ?? symbol.text, model: 0.8, at: symbol };
  }
  if (total?.found && total.currency) {
    const isCode = CURRENCY_CODES.includes(total.currency) && total.found.at.text.includes(total.currency);
    return { value: total.currency, model: isCode ? 0.85 : 0.7, at: total.found.at };
  }
  for (const { page, line } of lines) {
    const m = codes.exec(line.text);
    if (m) return { value: m[0], model: 0.6, at: hit(page, line, m.index, m.index + m[0].length) };
  }
  return null;
}

const HEADER_ITEM = /\b(?:description|items?|products?|services?)\b/i;
const HEADER_NUMBERS = /\b(?:qty|quantity|amount|price|unit|total|rate)\b/i;

function firstRowUnderHeader(lines: DocLines, model: number): Found {
  const i = lines.findIndex(({ line }) => HEADER_ITEM.test(line.text) && HEADER_NUMBERS.test(line.text));
  const next = lines[i + 1];
  if (i < 0 || !next || TOTAL_ANY.test(next.line.text)) return null;
  const cell = cells(next.page, next.line)[0];
  return cell ? { value: cell.text, model, at: cell } : null;
}

function receiptFields(lines: DocLines): Map<string, Found> {
  const paidLabel = /\b(?:total ?paid|amount ?paid|grand ?total|total ?charged)\b/i;
  const dateLabel = /\b(?:purchase ?date|transaction ?date|date ?of ?purchase|date)\b/i;
  const total = amountAfter(lines, paidLabel, 0.95, 'first') ?? amountAfter(lines, TOTAL_ANY, 0.85, 'last');
  const m = new Map<string, Found>();
  m.set(
    'merchant',
    first(
      () => firstText(lines, /\b(?:merchant|store|shop|seller|sold by|vendor)(?=\s*:)/i, 0.9),
      () => letterhead(lines, 0.5),
    ),
  );
  m.set(
    'receipt date',
    first(
      () => dateAfter(lines, dateLabel, 0.9),
      () => anyDate(lines, 0.6),
      () => rawAfter(lines, dateLabel),
    ),
  );
  m.set('total amount', total?.found ?? rawAfter(lines, paidLabel, TOTAL_ANY));
  m.set(
    'payment_method',
    first(
      () => firstText(lines, /\b(?:payment method|payment type|paid (?:by|with)|tender(?:ed)?(?: type)?|card type)\b/i, 0.9),
      () => keyword(lines, /\b(?:visa|mastercard|master card|amex|american express|discover|cash|debit card|credit card|apple pay|google pay|paypal)\b/i, 0.6),
    ),
  );
  return m;
}

function keyword(lines: DocLines, re: RegExp, model: number): Found {
  for (const { page, line } of lines) {
    const m = re.exec(line.text);
    if (m) return { value: m[0], model, at: hit(page, line, m.index, m.index + m[0].length) };
  }
  return null;
}

function otherFields(lines: DocLines): Map<string, Found> {
  const top = lines[0];
  const at = top ? hit(top.page, top.line, 0, top.line.text.length) : null;
  return new Map([['first line', at ? { value: at.text.replace(/\s+/g, ' '), model: 0.9, at } : null]]);
}

const RULES: Record<ClassName, (lines: DocLines) => Map<string, Found>> = {
  Invoice: invoiceFields,
  Receipt: receiptFields,
  Other: otherFields,
};

/** Fields of a document of `className` made of `pages`, in the order of the class's field set (the rules key what they find by project name, `spec.raw`). */
export function extractFields(className: ClassName, pages: PageText[]): Extracted[] {
  const found = RULES[className](docLines(pages));
  return FIELD_SETS[className].map((spec) => {
    const f = found.get(spec.raw) ?? null;
    return f ? { spec, value: f.value, model: f.model, at: f.at } : { spec, value: '', model: 0, at: null };
  });
}
