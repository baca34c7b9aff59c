/** Finding and normalising dates (to YYYY-MM-DD) and amounts (to "1234.50") inside text. */

export interface Found {
  value: string;
  /** Offset and length of the matched text in the searched string. */
  index: number;
  length: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';

/** Tried in order; each yields [year, month, day] from its groups. */
const DATE_FORMS: { re: RegExp; ymd: (g: string[]) => [string, string, string] }[] = [
  { re: /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/i, ymd: (g) => [g[1]!, g[2]!, g[3]!] },
  { re: /\b(\d{4})\/(\d{1,2})\/(\d{1,2})\b/i, ymd: (g) => [g[1]!, g[2]!, g[3]!] },
  // 03/01/2026 is read month first (US), unless the first number cannot be a month.
  {
    re: /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/i,
    ymd: (g) => (Number(g[1]) > 12 ? [g[3]!, g[2]!, g[1]!] : [g[3]!, g[1]!, g[2]!]),
  },
  { re: /\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b/i, ymd: (g) => [g[3]!, g[2]!, g[1]!] },
  { re: new RegExp(`\\b${DAY}[\\s-]+${MONTH}[\\s,-]+(\\d{4})\\b`, 'i'), ymd: (g) => [g[3]!, monthNumber(g[2]!), g[1]!] },
  { re: new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+(\\d{4})\\b`, 'i'), ymd: (g) => [g[3]!, monthNumber(g[1]!), g[2]!] },
];

function monthNumber(name: string): string {
  return String(MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1);
}

/** The earliest valid date in `text`. */
export function findDate(text: string): Found | null {
  let best: Found | null = null;
  for (const form of DATE_FORMS) {
    const re = new RegExp(form.re.source, 'gi');
    for (const m of text.matchAll(re)) {
      if (best && m.index >= best.index) break;
      const iso = isoDate(...form.ymd([...m].map((g) => g ?? '')));
      if (iso) best = { value: iso, index: m.index, length: m[0].length };
    }
  }
  return best;
}

function isoDate(y: string, m: string, d: string): string | null {
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  if (!(year >= 1900 && year <= 2199 && month >= 1 && month <= 12 && day >= 1)) return null;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  if (day > days) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function isIsoDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return m !== null && isoDate(m[1]!, m[2]!, m[3]!) === value;
}

export const CURRENCY_CODES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'NZD', 'SEK', 'NOK', 'DKK', 'PLN', 'CZK', 'INR', 'CNY', 'MXN', 'BRL', 'ZAR', 'SGD', 'HKD'];
export const CURRENCY_SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY' };

const CODE = `(?:${CURRENCY_CODES.join('|')})`;
const SYMBOL = '[$€£¥]';
const NUMBER = '\\d{1,3}(?:[,.\\u00a0]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?';
const AMOUNT_RE = new RegExp(`(-)?(?:(${CODE})\\s?|(${SYMBOL})\\s?)?(-)?(${NUMBER})(?:\\s?(${CODE}|${SYMBOL}))?(?![\\d])`, 'g');

export interface FoundAmount extends Found {
  /** Currency written with the amount (ISO code), if any. */
  currency: string | null;
}

/** The first amount in `text`; with `preferMarked`, an amount carrying a currency mark wins. */
export function findAmount(text: string, preferMarked = true): FoundAmount | null {
  let first: FoundAmount | null = null;
  for (const m of text.matchAll(AMOUNT_RE)) {
    // Skip digits glued to letters (an invoice number like INV-1001 is not an amount).
    if (m.index > 0 && /[A-Za-z0-9-]/.test(text[m.index - 1] ?? '') && !m[2] && !m[3]) continue;
    const value = normaliseNumber(m[5] ?? '', m[1] === '-' || m[4] === '-');
    if (value === null) continue;
    const mark = m[2] ?? m[3] ?? m[6] ?? null;
    const currency = mark === null ? null : (CURRENCY_SYMBOLS[mark] ?? mark);
    const found = { value, index: m.index, length: m[0].trimEnd().length, currency };
    if (!preferMarked || currency !== null) return found;
    first ??= found;
  }
  return first;
}

/**
 * "1,234.50" / "1.234,50" / "1 234,5" / "1234" -> "1234.50". The last separator followed by one or
 * two digits is the decimal point; any other separator groups thousands.
 */
export function normaliseNumber(raw: string, negative = false): string | null {
  const compact = raw.replace(/\u00a0/g, '');
  const dec = /[.,](\d{1,2})$/.exec(compact);
  const intPart = (dec ? compact.slice(0, dec.index) : compact).replace(/[.,]/g, '');
  if (!/^\d+$/.test(intPart)) return null;
  const frac = (dec?.[1] ?? '').padEnd(2, '0');
  const int = intPart.replace(/^0+(?=\d)/, '');
  return `${negative && (int !== '0' || frac !== '00') ? '-' : ''}${int}.${frac}`;
}

export function isAmount(value: string): boolean {
  return /^-?\d+\.\d{2}$/.test(value);
}

/** Amount string to integer cents (exact; no floating point). */
export function toCents(value: string): number {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(value);
  if (!m) return NaN;
  const cents = Number(m[2]) * 100 + Number(m[3]);
  return m[1] === '-' ? -cents : cents;
}

export function fromCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
