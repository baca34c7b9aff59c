/**
 * normalizeFieldName: spec 2.8 ("field names ... are converted to valid Python variable names") as
 * the published description's examples show it (service-shapes.md, "Corrections").
 */
import { describe, expect, it } from 'vitest';
import { normalizeFieldName } from '../../../shared/service/field-names.js';

describe('normalizeFieldName (spec 2.8)', () => {
  it.each([
    // The description's four examples, word for word.
    ['a space', 'due date', 'due_date'],
    ['an apostrophe and a space', "driver's license", 'driver_s_license'],
    ['a leading digit', '3rd category', '_3rd_category'],
    ['an underscore, doubled', 'secret_id', 'secret__id'],
    // Letters and digits stay as they are.
    ['letters', 'total', 'total'],
    ['letters of both cases', 'InvoiceNumber', 'InvoiceNumber'],
    ['digits after the start', 'Q4total', 'Q4total'],
    // Each underscore already in the name is doubled, wherever it is.
    ['several underscores', 'line_item_2', 'line__item__2'],
    ['a leading underscore', '_private', '__private'],
    ['two underscores', 'a__b', 'a____b'],
    ['a single underscore', '_', '__'],
    ['two underscores alone', '__', '____'],
    // A leading digit gets one underscore before it (after doubling, so the two rules do not mix).
    ['only digits', '2024', '_2024'],
    ['a leading digit and an underscore', '1st_line', '_1st__line'],
    ['a leading digit and spaces', '1st Line Item', '_1st_Line_Item'],
    // Invalid characters become one underscore each, never doubled.
    ['a space between capitals', 'Vendor Name', 'Vendor_Name'],
    ['a hyphen', 'amount-due', 'amount_due'],
    ['a dot', 'tax.rate', 'tax_rate'],
    ['punctuation', 'total ($)', 'total____'],
    ['a leading invalid character', '%tax', '_tax'],
    ['a tab and a slash', 'a\tb/c', 'a_b_c'],
    ['letters outside ASCII (read as invalid)', 'Größe', 'Gr__e'],
    ['an emoji (two UTF-16 units, one character)', 'a😀', 'a_'],
    ['a single invalid character', '-', '_'],
    ['an invalid character beside an underscore', 'a-_b', 'a___b'],
  ])('%s: %j -> %j', (_rule, input, expected) => {
    expect(normalizeFieldName(input)).toBe(expected);
  });

  it.each(['total', '1st Line Item', 'Vendor Name', '_', '-', '__', 'Größe', '%tax', 'secret_id', ''])('gives a valid Python identifier (ASCII): %j', (name) => {
    expect(normalizeFieldName(name)).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
  });

  it('keeps names apart that differ only in an underscore against another character', () => {
    const names = ['secret_id', 'secret id', 'secret-id', 'secret__id', 'secret id_'];
    expect(names.map(normalizeFieldName)).toEqual(['secret__id', 'secret_id', 'secret_id', 'secret____id', 'secret_id__']);
    expect(normalizeFieldName('secret_id')).not.toBe(normalizeFieldName('secret id'));
  });

  it('is not idempotent: a result name normalised again has its underscores doubled again', () => {
    expect(normalizeFieldName(normalizeFieldName('secret_id'))).toBe('secret____id');
  });
});
