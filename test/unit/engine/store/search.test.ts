/**
 * Full-text search (issue 4, "Local store": FTS5 over field values, field names, class names and
 * file names): hits say which file, run and document they belong to, with a snippet; user input
 * never breaks the query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ftsQuery, type Store } from '../../../../electron/engine/store/index.js';
import { BROAD_MATCHES } from '../../../../electron/engine/store/search.js';
import { parseResultsPage } from '../../../../shared/service/index.js';
import { resultsPage, tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
let s: Store;
let runId: number;
let localFileId: number;
beforeAll(() => {
  t = tempStore();
  s = t.open();
  const f = s.files.add({ path: '/in/Rechnung.pdf', size: 1, mtimeMs: 1, originalName: 'Rechnung Müller 2026-03.pdf' });
  s.files.assign(f.id, { safeName: 'Rechnung_Muller_2026-03.pdf', batchId: null, servicePath: 'svc-drive/workspaces/team/batches/17/Rechnung_Muller_2026-03.pdf' });
  localFileId = f.id;
  runId = s.runs.addRun({ serviceRunId: 'run_8f2a' }).id;
  s.results.storeResultsPage(runId, resultsPage(), parseResultsPage(resultsPage()), 0);
});
afterAll(() => t.cleanup());

describe('search: what it finds', () => {
  it('a field value, with the field, document, file and run it belongs to and a marked snippet', () => {
    const hits = s.search('Bürobedarf');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      kind: 'field', fieldName: 'supplier_name', value: 'Müller Bürobedarf GmbH', className: 'Invoice', fileName: 'Rechnung Müller 2026-03.pdf',
      runId, serviceRunId: 'run_8f2a', fileId: localFileId, snippet: 'Müller [Bürobedarf] GmbH',
    });
    const doc = s.results.filesOfRun(runId)[0]!.documents[0]!;
    expect(hits[0]!.documentId).toBe(doc.id);
    expect(hits[0]!.fieldId).toBe(doc.fields[0]!.id);
  });

  it('field names, class names and file names are searched too; diacritics and case do not matter', () => {
    expect(s.search('invoice_number').map((h) => h.value)).toEqual(['INV-2026-0042']);
    expect(s.search('cover letter').map((h) => [h.kind, h.className])).toEqual([['document', 'Cover Letter']]);
    // A class or file name finds the documents, not each of their fields.
    expect(s.search('receipt').map((h) => [h.kind, h.className])).toEqual([['document', 'Receipt']]);
    expect(s.search('scan_0007').map((h) => [h.kind, h.className])).toEqual([['document', 'Receipt'], ['document', 'Cover Letter']]);
    expect(s.search('cafe ole').map((h) => h.value)).toEqual(['Café Olé']);
    expect(s.search('1234.50').map((h) => h.fieldName)).toEqual(['total_amount']);
  });

  it('a prefix of any length from 3 finds, with or without a prefix index of its length (3-8 and 10 have one, migration 012)', () => {
    // "Bürobedarf" (10 letters) in a value; "INV-2026-0042" indexed joined as inv20260042 (11).
    for (let n = 3; n <= 10; n++) expect(s.search('Bürobedarf'.slice(0, n)).map((h) => h.value), `${n} characters`).toContain('Müller Bürobedarf GmbH');
    for (let n = 3; n <= 11; n++) expect(s.search('inv20260042'.slice(0, n)).map((h) => h.value), `${n} characters`).toContain('INV-2026-0042');
    expect(s.search('Bürobedarfs')).toEqual([]);
    expect(s.search('inv202600421')).toEqual([]);
  });

  it('words are prefixes by default and all must match; custom snippet markers', () => {
    expect(s.search('Büro').map((h) => h.fieldName)).toEqual(['supplier_name']);
    expect(s.search('Büro', 10, { prefix: false })).toEqual([]);
    expect(s.search('Müller GmbH').map((h) => h.fieldName)).toEqual(['supplier_name']);
    expect(s.search('Müller nothere')).toEqual([]);
    expect(s.search('Café', 10, { before: '<b>', after: '</b>' })[0]?.snippet).toBe('<b>Café</b> Olé');
  });

  it('words may be split between a field and its document\'s class or file name; such hits come after those scored', () => {
    expect(s.search('receipt café').map((h) => [h.kind, h.fieldName, h.className, h.snippet])).toEqual([['field', 'merchant', 'Receipt', '[Café] Olé']]);
    expect(s.search('Rechnung 1234.50').map((h) => [h.fieldName, h.fileName])).toEqual([['total_amount', 'Rechnung Müller 2026-03.pdf']]);
    expect(s.search('café invoice')).toEqual([]); // the café is on a receipt
    // Both words in the field (name and value) or both in the document's class: scored. "total"
    // only in the field and "invoice" only in the class: found, not scored (rank 0).
    expect(s.search('invoice inv').map((h) => [h.kind, h.fieldName, h.rank < 0]).sort()).toEqual([['document', null, true], ['field', 'invoice_number', true]]);
    expect(s.search('Invoice total').map((h) => [h.fieldName, h.rank])).toEqual([['total_amount', 0]]);
  });

  it('limit caps the number of hits', () => {
    expect(s.search('pdf', 100)).toHaveLength(3);
    expect(s.search('pdf', 2)).toHaveLength(2);
    expect(s.search('pdf', 0)).toEqual([]);
  });

  it('the index follows the results: a page stored again is searched once, its old values are gone', () => {
    const changed = resultsPage();
    ((changed.files as { documents: { fields: { value: string }[] }[] }[])[0]!.documents[0]!.fields[1]!).value = 'INV-2026-0099';
    s.results.storeResultsPage(runId, changed, parseResultsPage(changed), 0);
    expect(s.search('INV-2026-0042')).toEqual([]);
    expect(s.search('INV-2026-0099')).toHaveLength(1);
    expect(s.search('Bürobedarf')).toHaveLength(1);
  });
});

describe('search: hostile input never throws', () => {
  const hostile = [
    'foo"', '"', '""', 'a OR', 'OR', 'AND', 'NOT a', 'NEAR(a b)', '(', ')', 'a AND (', '*', 'a*', '^a', 'name:Müller', 'value : x', '-a', '+',
    "'; DROP TABLE fields; --", '\\', '{a b}', 'a\u0000b', '   ', '', '🧾 invoice', 'x'.repeat(5000),
  ];
  it.each(hostile.map((q) => [JSON.stringify(q).slice(0, 30), q]))('%s', (_label, q) => {
    expect(() => s.search(q)).not.toThrow();
    expect(Array.isArray(s.search(q))).toBe(true);
  });

  it('operators and quotes are plain text: "INV OR nothing" needs both words; a stray quote or a NUL is ignored', () => {
    expect(s.search('INV OR nothing')).toEqual([]);
    expect(s.search('Bürobedarf"').map((h) => h.fieldName)).toEqual(['supplier_name']);
    expect(s.search('Bürobedarf\u0000GmbH').map((h) => h.fieldName)).toEqual(['supplier_name']);
    expect(ftsQuery('a OR "b')).toBe('"a" AND "OR" AND """b"');
    // Words whose last part has three or more characters are prefixes; shorter ones match whole
    // tokens only. A word with punctuation inside may also match joined, by the same rule.
    expect(ftsQuery('inv 42 Acme')).toBe('"inv"* AND "42" AND "Acme"*');
    expect(ftsQuery('iban-4 INV-0042 Müll 1,250 12.50')).toBe('("iban-4" OR "iban4"*) AND ("INV-0042"* OR "INV0042"*) AND "Müll"* AND ("1,250"* OR "1250"*) AND "12.50"');
    expect(ftsQuery('NEAR(a "x"(y)')).toBe('("NEAR(a" OR "NEARa"*) AND ("""x""(y)" OR "xy")');
    expect(ftsQuery(' - " ')).toBeNull();
    expect(s.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'fields'").get()).toEqual({ n: 1 });
  });
});

describe('search: many hits', () => {
  // 3,200 one-field documents, every third an invoice and the rest receipts, so more than
  // BROAD_MATCHES hits and more than BROAD_MATCHES receipt documents.
  let big: TempStore;
  let b: Store;
  const DOCS = 3200;
  const classOf = (i: number) => (i % 3 === 0 ? 'Invoice' : 'Receipt');
  beforeAll(() => {
    big = tempStore();
    b = big.open();
    const run = b.runs.addRun({ serviceRunId: 'run_big' }).id;
    for (let p = 0; p < DOCS / 400; p++) {
      const files = Array.from({ length: 400 }, (_, k) => {
        const i = p * 400 + k;
        return { original_file_name: `doc-${i}.pdf`, input_file_path: null, documents: [{ class_name: classOf(i), page_numbers: [0], fields: [{ field_name: 'merchant', value: `Shop ${i}`, type: 'TEXT', error_msg: null }] }] };
      });
      const raw = resultsPage({ files, case_info: { fields: [] } });
      b.results.storeResultsPage(run, raw, parseResultsPage(raw), p * 400);
    }
  });
  afterAll(() => big.cleanup());

  const shopNo = (h: { value: string | null }) => Number(h.value?.split(' ')[1]);
  const newestOf = (cls: string, n: number) => Array.from({ length: DOCS }, (_, i) => DOCS - 1 - i).filter((i) => classOf(i) === cls).slice(0, n);

  it(`above ${BROAD_MATCHES} matches the newest hits come first, unscored`, () => {
    const hits = b.search('shop', 30);
    expect(hits.map(shopNo)).toEqual(Array.from({ length: 30 }, (_, i) => DOCS - 1 - i));
    expect(hits.every((h) => h.kind === 'field' && h.rank === 0 && h.snippet.startsWith('[Shop]'))).toBe(true);
    // Documents and fields together: a document before its field.
    expect(b.search('doc', 4).map((h) => [h.kind, h.fileName])).toEqual([
      ['document', `doc-${DOCS - 1}.pdf`], ['document', `doc-${DOCS - 2}.pdf`], ['document', `doc-${DOCS - 3}.pdf`], ['document', `doc-${DOCS - 4}.pdf`]]);
  });

  it('at most that many matches are scored', () => {
    const hits = b.search('shop 17');
    expect(hits.map(shopNo)).toEqual([17]);
    expect(hits[0]!.rank).toBeLessThan(0);
  });

  it('a word in the class narrows the fields, whether few documents have that class or many', () => {
    // 1,067 invoices: their fields are visited; 2,133 receipts: both indexes are walked together.
    expect(b.search('invoice shop', 40).map(shopNo)).toEqual(newestOf('Invoice', 40));
    expect(b.search('receipt shop', 40).map(shopNo)).toEqual(newestOf('Receipt', 40));
    expect(b.search('receipt shop', 40).every((h) => h.className === 'Receipt' && h.snippet.startsWith('[Shop]'))).toBe(true);
  });
});

describe('search: the indexes follow updates', () => {
  it('a changed value, class or file name is found by its new text only', () => {
    const u = tempStore();
    const s2 = u.open();
    const run = s2.runs.addRun({ serviceRunId: 'run_u' }).id;
    s2.results.storeResultsPage(run, resultsPage(), parseResultsPage(resultsPage()), 0);
    s2.db.prepare("UPDATE fields SET value = 'Schmidt Papier AG' WHERE value = 'Müller Bürobedarf GmbH'").run();
    s2.db.prepare("UPDATE documents SET class_name = 'Quittung' WHERE class_name = 'Receipt'").run();
    s2.db.prepare("UPDATE result_files SET original_file_name = 'renamed.pdf' WHERE original_file_name = 'scan_0007.pdf'").run();
    expect(s2.search('Bürobedarf')).toEqual([]);
    expect(s2.search('Schmidt').map((h) => h.fieldName)).toEqual(['supplier_name']);
    expect(s2.search('receipt')).toEqual([]);
    expect(s2.search('quittung renamed').map((h) => h.kind)).toEqual(['document']);
    expect(s2.search('scan_0007')).toEqual([]);
    for (const t of ['field_search', 'document_search']) s2.searchDb.prepare(`INSERT INTO ${t} (${t}, rank) VALUES ('integrity-check', 1)`).run();
    u.cleanup();
  });
});

describe('search: words as people type them (issue 12)', () => {
  // Values as invoices print them and as the service normalises them, and a file named after its invoice.
  let w: TempStore;
  let ws: Store;
  beforeAll(() => {
    w = tempStore();
    ws = w.open();
    const run = ws.runs.addRun({ serviceRunId: 'run_w' }).id;
    const field = (field_name: string, value: string) => ({ field_name, value, type: 'TEXT' });
    const raw = resultsPage({
      files: [
        { original_file_name: 'INV-3003.pdf', input_file_path: null, documents: [{ class_name: 'Invoice', page_numbers: [1], fields: [
          field('invoice_number', 'INV-3003'), field('total_amount', '1250'), field('_1st_Line_Item', 'Desk chair 1,250.00 EUR'), field('tax', '12.50'),
        ] }] },
        { original_file_name: 'scan.pdf', input_file_path: null, documents: [{ class_name: 'Invoice', page_numbers: [1], fields: [
          field('invoice_number', 'INV-3104'), field('total_amount', '1.250,00'), field('net_amount', '2 480,00 €'),
        ] }] },
      ],
      case_info: { fields: [] },
    });
    ws.results.storeResultsPage(run, raw, parseResultsPage(raw), 0);
  });
  afterAll(() => w.cleanup());

  const found = (q: string) => ws.search(q).map((h) => (h.kind === 'field' ? `${h.fieldName}=${h.value}` : `document ${h.fileName}`)).sort();

  it('a prefix matches across punctuation inside a word; the snippet marks the word as stored', () => {
    expect(found('INV-30')).toEqual(['document INV-3003.pdf', 'invoice_number=INV-3003']);
    expect(found('INV-3')).toEqual(['document INV-3003.pdf', 'invoice_number=INV-3003', 'invoice_number=INV-3104']);
    expect(found('inv3003')).toEqual(['document INV-3003.pdf', 'invoice_number=INV-3003']);
    expect(found('INV-31')).toEqual(['invoice_number=INV-3104']);
    expect(found('INV-32')).toEqual([]);
    expect(ws.search('INV-30').find((h) => h.kind === 'field')?.snippet).toBe('[INV-3003]');
    expect(ws.search('INV-31', 10, { before: '<b>', after: '</b>' })[0]?.snippet).toBe('<b>INV-3104</b>');
  });

  it('numbers match with or without thousands separators, in either writing; decimals stay apart', () => {
    expect(found('1,250')).toEqual(['_1st_Line_Item=Desk chair 1,250.00 EUR', 'total_amount=1.250,00', 'total_amount=1250']);
    expect(found('1250')).toEqual(['_1st_Line_Item=Desk chair 1,250.00 EUR', 'total_amount=1.250,00', 'total_amount=1250']);
    expect(found('1.250,00')).toEqual(['_1st_Line_Item=Desk chair 1,250.00 EUR', 'total_amount=1.250,00']);
    expect(found('chair 1,250.00')).toEqual(['_1st_Line_Item=Desk chair 1,250.00 EUR']);
    // A space (or a no-break space) as thousands separator, as French and Swiss invoices print it.
    expect(found('2480')).toEqual(['net_amount=2 480,00 €']);
    expect(found('2,480.00')).toEqual(['net_amount=2 480,00 €']);
    expect(ws.search('2480')[0]?.snippet).toBe('[2 480,00] €');
    // 12.50 is twelve and a half, not 1250.
    expect(found('12.50')).toEqual(['tax=12.50']);
    expect(ws.search('1,250').find((h) => h.value === '1250')?.snippet).toBe('[1250]');
    expect(ws.search('1250').find((h) => h.fieldName === '_1st_Line_Item')?.snippet).toBe('Desk chair [1,250.00] EUR');
  });

  it('a number half typed with a separator finds what it begins, as its digits alone would ("1,25" as "125")', () => {
    const all1250 = ['_1st_Line_Item=Desk chair 1,250.00 EUR', 'total_amount=1.250,00', 'total_amount=1250'];
    expect(found('125')).toEqual(all1250);
    expect(found('1,25')).toEqual(all1250);
    expect(found("1'25")).toEqual(all1250);
    // A period before two digits is a decimal one: 12.50 is a price, 1.25 not 1,250 half typed.
    expect(found('1.25')).toEqual([]);
    expect(ftsQuery('12.50')).toBe('"12.50"');
    expect(found('2 48')).toEqual([]);
    expect(found('2,48')).toEqual(['net_amount=2 480,00 €']);
    expect(ws.search('1,25').find((h) => h.value === '1250')?.snippet).toBe('[1250]');
    // Not a prefix when asked for whole words; a first group of four digits has no thousands separator.
    expect(ws.search('1,25', 50, { prefix: false })).toEqual([]);
    expect(ftsQuery('1,25')).toBe('("1,25" OR "125"*)');
    expect(ftsQuery('1250,5')).toBe('"1250,5"');
    expect(ftsQuery('1.250,0')).toBe('("1.250,0" OR "1250 0")');
    expect(ftsQuery('1,250,0')).toBe('("1,250,0" OR "1250 0" OR "12500"*)');
  });

  it('"1 250", "1\'250" and "1.250,00" are one number: found as the number or as its groups', () => {
    const all1250 = ['_1st_Line_Item=Desk chair 1,250.00 EUR', 'total_amount=1.250,00', 'total_amount=1250'];
    expect(found('1 250')).toEqual(all1250);
    expect(found("1'250")).toEqual(all1250);
    expect(found('1\u00a0250')).toEqual(all1250);
    expect(found('1.250,00')).toEqual(['_1st_Line_Item=Desk chair 1,250.00 EUR', 'total_amount=1.250,00']);
    expect(found('1 250,00')).toEqual(['_1st_Line_Item=Desk chair 1,250.00 EUR', 'total_amount=1.250,00']);
    expect(found('2 480')).toEqual(['net_amount=2 480,00 €']);
    expect(found('chair 1 250')).toEqual(['_1st_Line_Item=Desk chair 1,250.00 EUR']);
    expect(ftsQuery('1 250')).toBe('(("1" AND "250"*) OR "1250"*)');
    // Groups of other lengths stay separate words.
    expect(ftsQuery('1 25 3003')).toBe('"1" AND "25" AND "3003"*');
    expect(ws.search('1 250').find((h) => h.value === '1250')?.snippet).toBe('[1250]');
  });

  it('a joined word in a class or file name narrows fields like any other word', () => {
    expect(found('INV-30 total')).toEqual(['total_amount=1250']);
  });
});
