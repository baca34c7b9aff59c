/**
 * Full-text search (issue 4, "Local store": FTS5 over field values, field names, class names and
 * file names): hits say which file, run and document they belong to, with a snippet; user input
 * never breaks the query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ftsQuery, type Store } from '../../../../electron/engine/store/index.js';
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
    expect(s.search('receipt').map((h) => h.kind).sort()).toEqual(['document', 'field']);
    expect(s.search('scan_0007').length).toBe(3); // two documents and one field of that file
    expect(s.search('cafe ole').map((h) => h.value)).toEqual(['Café Olé']);
    expect(s.search('1234.50').map((h) => h.fieldName)).toEqual(['total_amount']);
  });

  it('words are prefixes by default and all must match; custom snippet markers', () => {
    expect(s.search('Büro').map((h) => h.fieldName)).toEqual(['supplier_name']);
    expect(s.search('Büro', 10, { prefix: false })).toEqual([]);
    expect(s.search('Müller GmbH').map((h) => h.fieldName)).toEqual(['supplier_name']);
    expect(s.search('Müller nothere')).toEqual([]);
    expect(s.search('Café', 10, { before: '<b>', after: '</b>' })[0]?.snippet).toBe('<b>Café</b> Olé');
  });

  it('limit caps the number of hits', () => {
    expect(s.search('Invoice', 100).length).toBeGreaterThan(2);
    expect(s.search('Invoice', 2)).toHaveLength(2);
    expect(s.search('Invoice', 0)).toEqual([]);
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
    expect(ftsQuery('a OR "b')).toBe('"a" "OR" """b"');
    // Words of three or more characters are prefixes; shorter ones match whole tokens only.
    expect(ftsQuery('inv 42 Acme')).toBe('"inv"* "42" "Acme"*');
    expect(ftsQuery(' - " ')).toBeNull();
    expect(s.db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'fields'").get()).toEqual({ n: 1 });
  });
});
