/**
 * The scan that finds a top-level key's value in a JSON body without parsing it (a results page's
 * case_info): every span it returns must be exactly the text JSON.parse reads as that value, and
 * anything it cannot vouch for must be null (the caller then parses the body whole).
 */
import { describe, expect, it } from 'vitest';
import { topLevelValueSpan } from '../../../../electron/engine/service/json-key-span.js';

const spanText = (text: string, key = 'case_info'): string | null => {
  const b = Buffer.from(text);
  const s = topLevelValueSpan(b, key);
  return s && b.toString('utf8', s.start, s.end);
};
/** The span's text parses to what JSON.parse gives for the key. */
const agrees = (text: string, key = 'case_info'): void => {
  const got = spanText(text, key);
  expect(got).not.toBeNull();
  expect(JSON.parse(got as string)).toEqual((JSON.parse(text) as Record<string, unknown>)[key]);
};

describe('topLevelValueSpan', () => {
  it('finds an object value among others, before and after it', () => {
    const text = '{"id":"r1","files":[{"a":1}],"case_info":{"fields":[{"name":"total","value":"10"}]},"has_more":true}';
    expect(spanText(text)).toBe('{"fields":[{"name":"total","value":"10"}]}');
    agrees(text);
  });

  it('strings holding braces, brackets, commas, colons and escaped quotes do not end the value', () => {
    const text = JSON.stringify({ case_info: { fields: [{ name: 'x', value: 'a } ] { [ , : "quoted" \\ back\\\\' }, { name: '"}', value: '\\' }] }, has_more: false });
    agrees(text);
    expect(spanText(text, 'has_more')).toBe('false');
  });

  it('a string ending in an escaped backslash ends there', () => {
    const text = '{"case_info":"ends with \\\\","has_more":true}';
    expect(spanText(text)).toBe('"ends with \\\\"');
    agrees(text);
  });

  it('nested objects and arrays, white space of every kind, and non-ASCII text', () => {
    const text = ' {\n\t"files" : [ [1, [2, {"case_info": 3}]], {"x": {"y": {}}} ] ,\r\n "case_info" :\n {"fields": [ {"name": "Größe €", "v": [[], {}, null, true, -1.5e3]} ]} \n}\n ';
    agrees(text);
  });

  it('values of every kind', () => {
    for (const v of ['null', 'true', 'false', '-12.5e-3', '0', '"text"', '[]', '{}', '[1,"]",{"a":"}"}]']) agrees(`{"a":1,"case_info":${v},"b":2}`);
    agrees('{"case_info":7}');
  });

  it('a key only in a nested object is not the top level\'s: null', () => {
    expect(spanText('{"files":[{"case_info":{"fields":[]}}],"has_more":true}')).toBeNull();
    expect(spanText('{"meta":{"case_info":{"fields":[]}},"has_more":true}')).toBeNull();
    // Nor a string value that reads like the key.
    expect(spanText('{"note":"\\"case_info\\":{}","has_more":true}')).toBeNull();
  });

  it('a missing key, an empty object, a body that is not an object: null', () => {
    expect(spanText('{"id":"r1","has_more":false}')).toBeNull();
    expect(spanText('{}')).toBeNull();
    expect(spanText('[{"case_info":1}]')).toBeNull();
    expect(spanText('"case_info"')).toBeNull();
    expect(spanText('')).toBeNull();
  });

  it('a key there twice (JSON.parse would take the last) or written with escapes: null, the body is parsed whole', () => {
    expect(spanText('{"case_info":1,"case_info":2}')).toBeNull();
    expect(spanText('{"case\\u005finfo":1}')).toBeNull();
  });

  it('a body that is cut short or malformed around the values: null', () => {
    for (const text of [
      '{"case_info":{"fields":[1,2]}', // the object never closes
      '{"case_info":{"fields":[1,2]',
      '{"case_info":"open',
      '{"case_info" {"a":1}}',
      '{"case_info":}',
      '{"case_info":1 "b":2}',
      '{"case_info":1,}',
      '{"case_info":1} trailing',
      '{case_info:1}',
    ]) expect(spanText(text), text).toBeNull();
  });

  it('other keys too, at any position', () => {
    const text = JSON.stringify({ id: 'r', files: [{ has_more: 'no' }], has_more: true });
    expect(spanText(text, 'has_more')).toBe('true');
    expect(spanText(text, 'id')).toBe('"r"');
  });
});
