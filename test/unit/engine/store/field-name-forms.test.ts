/**
 * Field names as the service normalises them (issue 27, part 5: `secret_id` -> `secret__id`): the
 * client stores, shows, searches and exports each name exactly as its results carry it, so results
 * stored before the rule was followed (single underscores) and after it (doubled) sit side by side
 * and are both found by the name a user knows from the project.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../../electron/engine/store/index.js';
import { exportText } from '../../../../electron/engine/app/exports.js';
import { parseResultsPage } from '../../../../shared/service/index.js';
import { normalizeFieldName } from '../../../../shared/service/field-names.js';
import { resultsPage, tempStore, type TempStore } from './fixtures.js';

let t: TempStore;
let s: Store;
let before = 0;
let after = 0;
const field = (field_name: string, value: string) => ({ field_name, value, type: 'TEXT' });
function run(id: string, file: string, fields: ReturnType<typeof field>[]): number {
  const page = resultsPage({ files: [{ original_file_name: file, input_file_path: null, documents: [{ class_name: 'Invoice', page_numbers: [1], fields }] }], case_info: { fields: [] } });
  const r = s.runs.addRun({ serviceRunId: id }).id;
  s.results.storeResultsPage(r, page, parseResultsPage(page), 0);
  return r;
}

beforeAll(() => {
  t = tempStore();
  s = t.open();
  // A run stored with the old single-underscore form, then one with the published rule's names.
  before = run('run_old', 'old.pdf', [field('secret_id', 'S-1'), field('driver_s_license', 'DL-1')]);
  after = run('run_new', 'new.pdf', [field(normalizeFieldName('secret_id'), 'S-2'), field(normalizeFieldName("driver's license"), 'DL-2')]);
});
afterAll(() => t.cleanup());

describe('field names as the service sends them', () => {
  it('are stored and read back unchanged, in either form', () => {
    expect(s.results.filesOfRun(before)[0]!.documents[0]!.fields.map((f) => f.name)).toEqual(['secret_id', 'driver_s_license']);
    expect(s.results.filesOfRun(after)[0]!.documents[0]!.fields.map((f) => f.name)).toEqual(['secret__id', 'driver_s_license']);
  });

  it('are found by the project name, with one underscore, two, or a space', () => {
    for (const q of ['secret_id', 'secret__id', 'secret id']) {
      expect(s.search(q).map((h) => [h.fieldName, h.value]).sort(), q).toEqual([['secret__id', 'S-2'], ['secret_id', 'S-1']]);
    }
  });

  it('head the wide CSV columns as received', () => {
    expect(exportText('csv-wide', s.results.filesOfRun(after), new Map()).split('\r\n')[0]).toBe('file,document,class,pages,secret__id,driver_s_license');
  });
});
