/** normalizeFieldName: every rule of spec 2.8 ("field names ... are converted to valid Python variable names"). */
import { describe, expect, it } from 'vitest';
import { normalizeFieldName } from '../../../shared/service/field-names.js';

describe('normalizeFieldName (spec 2.8)', () => {
  it.each([
    // Only letters, digits and underscores are allowed: names made of them are unchanged.
    ['letters', 'total', 'total'],
    ['letters of both cases', 'InvoiceNumber', 'InvoiceNumber'],
    ['letters, digits and underscores', 'line_item_2', 'line_item_2'],
    ['a leading underscore', '_private', '_private'],
    ['two underscores', '__', '__'],
    ['digits after the start', 'Q4_total', 'Q4_total'],
    // A name must start with a letter or underscore: a leading digit gets a preceding underscore.
    ['a leading digit', '1st_line', '_1st_line'],
    ['only digits', '2024', '_2024'],
    ['a leading digit and invalid characters', '1st Line Item', '_1st_Line_Item'],
    // Invalid characters become underscores, one for one.
    ['a space', 'Vendor Name', 'Vendor_Name'],
    ['a hyphen', 'amount-due', 'amount_due'],
    ['a dot', 'tax.rate', 'tax_rate'],
    ['punctuation', 'total ($)', 'total____'],
    ['a leading invalid character', '%tax', '_tax'],
    ['a tab and a slash', 'a\tb/c', 'a_b_c'],
    ['letters outside ASCII (read as invalid)', 'Größe', 'Gr__e'],
    ['an emoji (two UTF-16 units, one character)', 'a😀', 'a_'],
    // A single underscore becomes a double underscore.
    ['a single underscore', '_', '__'],
    ['a single invalid character, which becomes a single underscore', '-', '__'],
    ['a single space', ' ', '__'],
  ])('%s: %j -> %j', (_rule, input, expected) => {
    expect(normalizeFieldName(input)).toBe(expected);
  });

  it.each(['total', '1st Line Item', 'Vendor Name', '_', '-', '__', 'Größe', '%tax'])('results are valid Python identifiers (ASCII) and stable: %j', (name) => {
    const once = normalizeFieldName(name);
    expect(once).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    expect(once).not.toBe('_');
    expect(normalizeFieldName(once)).toBe(once);
  });
});
