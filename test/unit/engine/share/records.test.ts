import { describe, expect, it } from 'vitest';
import {
  ShareRecordError, encode, genOfName, highestGen, parseBatchGen, parseClaimGen, parseHeartbeat, parseStoredBatch,
} from '../../../../electron/engine/share/records.js';

const SHA = 'a'.repeat(64);
const bytes = (v: unknown): Uint8Array => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const claim = { agent: 'h-1', name: 'Scanner A', gen: 2, rel: 'in/x.pdf', size: 10, state: 'batched', batch: 'b-1', batchGen: 1, at: 5 };

describe('share records', () => {
  it('reads a claim generation and ignores fields it does not know', () => {
    expect(parseClaimGen('p/2.json', bytes({ ...claim, addedLater: { x: 1 } }), 2)).toEqual(claim);
    expect(parseClaimGen('p/3.json', encode({ ...claim, gen: 3, state: 'failed', reason: 'No pages.' }), 3)).toMatchObject({ state: 'failed', reason: 'No pages.' });
  });

  it.each([
    ['not JSON', '{"agent":', /p\/2\.json cannot be read: it is not JSON/],
    ['an array', [1, 2], /it is not a JSON object/],
    ['a foreign object', { hello: 'world' }, /"state" should be non-empty text/],
    ['an unknown state', { ...claim, state: 'stolen' }, /"state" should be one of/],
    ['a generation that does not match its name', { ...claim, gen: 7 }, /says generation 7 but is stored as generation 2/],
    ['a batched state without its batch', { ...claim, batch: undefined }, /should name its batch/],
    ['a size that is not a whole number', { ...claim, size: -1 }, /"size" should be a whole number/],
  ])('a damaged or foreign claim (%s) is a clear ShareRecordError naming the record', (_, raw, message) => {
    let err: unknown;
    try {
      parseClaimGen('p/2.json', bytes(raw), 2);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ShareRecordError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toMatch(/Another program may have written it, or it was damaged\.$/);
  });

  it('reads heartbeats, batch generations and batch records', () => {
    const hb = { agent: 'h-1', name: 'A', host: 'h', pid: 3, seq: 9, inFlight: 2, leaseMs: 60000, at: 1, batches: [{ name: 'b-1', gen: 2 }] };
    expect(parseHeartbeat('a.json', bytes(hb))).toEqual(hb);
    expect(() => parseHeartbeat('a.json', bytes({ ...hb, seq: 'nine' }))).toThrow(/"seq" should be a whole number/);
    expect(parseBatchGen('b/1.json', bytes({ agent: 'h-1', name: 'A', gen: 1, at: 2 }), 1)).toEqual({ agent: 'h-1', name: 'A', gen: 1, at: 2 });
    const rec = { name: 'b-1', plan: '{}', serviceBatchId: '4', servicePath: null, run: null, agent: 'h-1', gen: 2,
      files: [{ sha256: SHA, rel: 'x.pdf', safeName: 'x.pdf', size: 1, mtimeMs: 2, uploaded: true }] };
    expect(parseStoredBatch('b.json', bytes(rec))).toEqual(rec);
    expect(() => parseStoredBatch('b.json', bytes({ ...rec, files: [{ ...rec.files[0], sha256: 'xyz' }] }))).toThrow(/file 1 has no valid sha256/);
    expect(() => parseStoredBatch('b.json', bytes({ ...rec, files: 'none' }))).toThrow(/"files" should be a list/);
  });

  it('finds generations among folder names, ignoring anything else', () => {
    expect(genOfName('12.json')).toBe(12);
    for (const n of ['progress.json', '0.json', '01.json', '3.json.tmp', 'x']) expect(genOfName(n)).toBeNull();
    expect(highestGen(['1.json', 'progress.json', '10.json', '9.json'])).toBe(10);
    expect(highestGen([])).toBe(0);
  });
});
