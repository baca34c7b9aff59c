// The UI contract's argument checks (shared/ui/contract.ts, check.ts) and the headless wire encoding:
// every payload from a renderer is checked in the engine's process before a handler sees it.
import { describe, expect, it } from 'vitest';
import { checkArgs, EVENT_CHANNELS, isRequestChannel, MAX_STAGED_BYTES, REQUEST_CHANNELS } from '../../../shared/ui/contract.js';
import { PayloadError } from '../../../shared/ui/check.js';
import { decodeWire, encodeWire, fromBase64, toBase64 } from '../../../shared/ui/wire.js';

describe('checkArgs', () => {
  it('accepts well-formed arguments and returns them typed, without unknown extras', () => {
    expect(checkArgs('files.page', { offset: 0, limit: 100, states: ['failed', 'queued'], folderId: 0, name: 'inv' }))
      .toEqual({ offset: 0, limit: 100, states: ['failed', 'queued'], folderId: 0, name: 'inv' });
    expect(checkArgs('upload.paths', { paths: ['/a.pdf'], target: { type: 'app', id: 'x', version: '2' } }))
      .toEqual({ paths: ['/a.pdf'], target: { type: 'app', id: 'x', version: '2' } });
    expect(checkArgs('app.info', undefined)).toEqual({});
  });

  it.each([
    ['files.page', { offset: -1, limit: 10 }, /files\.page\.offset must be a whole number from 0/],
    ['files.page', { offset: 0, limit: 5000 }, /files\.page\.limit must be a whole number from 1 to 1000/],
    ['files.page', { offset: 0, limit: 10, states: ['lost'] }, /files\.page\.states\[0\] must be one of discovered, stable/],
    ['files.page', { offset: 0, limit: 10, sql: 'DROP' }, /files\.page has an unknown key "sql"/],
    ['files.retry', { id: '7' }, /files\.retry\.id must be a whole number from 1/],
    ['files.retry', { id: 1.5 }, /files\.retry\.id must be a whole number/],
    ['connection.signIn', { url: 'http://x', token: '' }, /connection\.signIn\.token must be a non-empty string/],
    ['connection.signIn', { url: 'http://x', token: 't', sessionOnly: 'yes' }, /sessionOnly must be true or false/],
    ['upload.paths', { paths: ['/a'], target: { type: 'deployment' } }, /upload\.paths\.target must be a deployment or an app/],
    ['upload.paths', { paths: 'a', target: { type: 'deployment', id: 'd' } }, /upload\.paths\.paths must be a list/],
    ['upload.stage', { dropId: 'abcdef0123', relPath: 'a.pdf', bytes: 'AAAA' }, /upload\.stage\.bytes must be bytes/],
    ['export.run', { runId: 1, format: 'xml' }, /export\.run\.format must be one of csv, csv-wide, json/],
    ['export.selection', { folderId: -1, format: 'csv' }, /export\.selection\.folderId must be a whole number from 0/],
    ['export.selection', { sinceMs: 1.5, format: 'csv-wide' }, /export\.selection\.sinceMs must be a whole number/],
    ['search', { query: 'x'.repeat(501) }, /search\.query must be at most 500 characters/],
    ['folders.remove', [], /folders\.remove must be an object, got an array/],
  ] as const)('%s refuses %j', (channel, raw, msg) => {
    expect(() => checkArgs(channel, raw)).toThrow(PayloadError);
    expect(() => checkArgs(channel, raw)).toThrow(msg);
  });

  it('refuses staged bytes over the limit without copying them', () => {
    const big = new Uint8Array(MAX_STAGED_BYTES + 1);
    expect(() => checkArgs('upload.stage', { dropId: 'abcdef0123', relPath: 'a', bytes: big })).toThrow(/at most 209715200 bytes/);
  });

  it('knows its channels and nothing else (no generic pass-through)', () => {
    expect(REQUEST_CHANNELS).toContain('files.page');
    expect(isRequestChannel('files.page')).toBe(true);
    expect(isRequestChannel('constructor')).toBe(false);
    expect(isRequestChannel('__proto__')).toBe(false);
    expect(() => checkArgs('nope' as never, {})).toThrow(/unknown channel/);
    expect(new Set(EVENT_CHANNELS).size).toBe(EVENT_CHANNELS.length);
  });
});

describe('wire encoding', () => {
  it('base64 round-trips every length and byte value', () => {
    for (let n = 0; n < 70; n++) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
      expect(toBase64(b)).toBe(Buffer.from(b).toString('base64'));
      expect(fromBase64(toBase64(b))).toEqual(b);
    }
    expect(() => fromBase64('a$==')).toThrow(/invalid base64/);
  });

  it('bytes travel tagged inside JSON; plain objects that look similar stay objects', () => {
    const v = { a: 1, file: { bytes: new Uint8Array([0, 255, 7]) }, other: { $bytes: 5 }, two: { $bytes: 'AA==', x: 1 } };
    const back = decodeWire(encodeWire(v)) as typeof v;
    expect(back.file.bytes).toBeInstanceOf(Uint8Array);
    expect([...back.file.bytes]).toEqual([0, 255, 7]);
    expect(back.other).toEqual({ $bytes: 5 });
    expect(back.two).toEqual({ $bytes: 'AA==', x: 1 });
  });
});
