/** --bwlimit as rclone writes it (issue 27, section 3): rates, UP:DOWN, timetables, the errors, and what is in force when. */
import { describe, expect, it } from 'vitest';
import { BwLimitError, formatRate, limitAt, limitText, parseBwLimit, parseRate } from '../../../shared/bwlimit.js';

const K = 1024;
const M = K * K;
/** A local date: 2026-03-02 is a Monday. */
const at = (day: number, h: number, m = 0): Date => new Date(2026, 2, 2 + day, h, m);
const MON = 0, TUE = 1, FRI = 4, SAT = 5, SUN = 6;

describe('rates (rclone units: bytes per second, binary suffixes, no suffix KiB/s)', () => {
  it.each([
    ['2M', 2 * M], ['2m', 2 * M], ['512', 512 * K], ['100k', 100 * K], ['1G', K * M], ['0.625M', 0.625 * M],
    ['2Mi', 2 * M], ['2MiB', 2 * M], ['2MB', 2 * M], ['4096B', 4 * K], ['1.5M/s', 1.5 * M],
    ['off', null], ['OFF', null], ['0', null],
  ])('%s', (text, bps) => {
    expect(parseRate(text)).toBe(bps);
  });

  it.each([
    ['2X', /"2X" in "2X" is not a rate: write bytes per second with K, M or G \(2M is 2 MiB\/s\), or off/],
    ['fast', /is not a rate/],
    ['-1M', /is not a rate/],
    ['16Mbit', /looks like bits per second: .*16 Mbit\/s is 2M/],
    ['16Mbps', /looks like bits per second/],
    ['2Mb', /looks like bits per second/],
    ['100B', /is too low: the smallest limit is 1K/],
  ])('refuses %s in words', (text, msg) => {
    expect(() => parseRate(text)).toThrow(BwLimitError);
    expect(() => parseRate(text)).toThrow(msg);
  });
});

describe('parseBwLimit', () => {
  it('one rate holds all week, for uploads and downloads alike', () => {
    const s = parseBwLimit(' 2M ');
    expect(s).toEqual({ spec: '2M', slots: [{ day: 0, minute: 0, rates: { up: 2 * M, down: 2 * M } }] });
    expect(limitAt(s, at(SAT, 3))).toEqual({ rates: { up: 2 * M, down: 2 * M }, untilMs: null });
  });

  it('UP:DOWN, either may be off', () => {
    expect(parseBwLimit('10M:1M').slots[0]?.rates).toEqual({ up: 10 * M, down: M });
    expect(parseBwLimit('10M:off').slots[0]?.rates).toEqual({ up: 10 * M, down: null });
    expect(parseBwLimit('off:512').slots[0]?.rates).toEqual({ up: null, down: 512 * K });
  });

  it("the issue's timetable: a day range, then entries without a day for every day", () => {
    const s = parseBwLimit('Mon-Fri,08:00,2M 18:00,off');
    expect(s.slots.map((x) => [x.day, x.minute, x.rates.up])).toEqual([
      [0, 1080, null], [1, 480, 2 * M], [1, 1080, null], [2, 480, 2 * M], [2, 1080, null], [3, 480, 2 * M], [3, 1080, null],
      [4, 480, 2 * M], [4, 1080, null], [5, 480, 2 * M], [5, 1080, null], [6, 1080, null],
    ]);
  });

  it("rclone's own forms: DAY-HH:MM, whole day names, semicolons, entries without a day for every day", () => {
    const a = parseBwLimit('Mon-00:00,512 Fri-23:59,10M Sat-10:00,1M Sun-20:00,off');
    expect(a.slots.map((x) => [x.day, x.minute, x.rates.up])).toEqual([[0, 1200, null], [1, 0, 512 * K], [5, 1439, 10 * M], [6, 600, M]]);
    expect(parseBwLimit('monday-08:00,1M;Sunday-08:00,off').slots.map((x) => x.day)).toEqual([0, 1]);
    expect(parseBwLimit('08:00,512k;12:00,10M').slots).toHaveLength(14);
    expect(parseBwLimit('Sat,10:00,1M').slots).toEqual([{ day: 6, minute: 600, rates: { up: M, down: M } }]);
    expect(parseBwLimit('Mon-Fri-08:00,2M').slots.map((x) => x.day)).toEqual([1, 2, 3, 4, 5]);
    // A range round the week.
    expect(parseBwLimit('Fri-Mon,09:00,1M').slots.map((x) => x.day)).toEqual([0, 1, 5, 6]);
  });

  it.each([
    ['', /an empty limit/],
    ['Mon-Fri,25:00,2M', /"25:00" in "Mon-Fri,25:00,2M" is not a time: write HH:MM, from 00:00 to 23:59/],
    ['Mon-Fri,8:60,2M', /is not a time/],
    ['Mnday-08:00,2M', /"Mnday" in "Mnday-08:00,2M" is not a day: write Mon, Tue/],
    ['Mon-Fri,08:00', /"Mon-Fri,08:00" has no rate|is not a rate/],
    ['08:00,2M 18:00', /"18:00" has no rate/],
    ['Mon,2M', /"Mon,2M" has no time/],
    ['08:00,2M 08:00,off', /Sun 08:00 is given twice/],
    ['08:00,2M:1M:3M', /more than one colon/],
    ['08:00,2M 18:00,fast', /"fast" in "18:00,fast" is not a rate/],
  ])('refuses %j: %s', (spec, msg) => {
    expect(() => parseBwLimit(spec)).toThrow(msg);
  });
});

describe('what is in force when (local time), and when it changes', () => {
  const s = parseBwLimit('Mon-Fri,08:00,2M 18:00,off');

  it.each([
    ['Monday 07:59', at(MON, 7, 59), null, at(MON, 8)],
    ['Monday 08:00', at(MON, 8), 2 * M, at(MON, 18)],
    ['Monday 17:59', at(MON, 17, 59), 2 * M, at(MON, 18)],
    ['Monday 18:00', at(MON, 18), null, at(TUE, 8)],
    ['Friday 18:30', at(FRI, 18, 30), null, at(MON + 7, 8)],
    ['Saturday noon', at(SAT, 12), null, at(MON + 7, 8)],
    ['Sunday 23:59', at(SUN, 23, 59), null, at(MON + 7, 8)],
  ])('%s', (_name, when, up, until) => {
    expect(limitAt(s, when)).toEqual({ rates: { up, down: up }, untilMs: until.getTime() });
  });

  it('a slot whose rates are the same as the next is not a change', () => {
    const same = parseBwLimit('08:00,2M 12:00,2M 18:00,off');
    expect(limitAt(same, at(TUE, 9)).untilMs).toBe(at(TUE, 18).getTime());
  });
});

describe('the header text', () => {
  const s = parseBwLimit('Mon-Fri,08:00,2M 18:00,off');
  it('says the rate and until when, in the day when it is today', () => {
    expect(limitText(limitAt(s, at(MON, 9, 30)), at(MON, 9, 30))).toBe('limited to 2 MiB/s until 18:00');
  });
  it('names the day when the change is not today', () => {
    const night = parseBwLimit('Mon-Fri,20:00,512 Mon-Fri,07:00,off');
    expect(limitText(limitAt(night, at(TUE, 23)), at(TUE, 23))).toBe('limited to 512 KiB/s until Wed 07:00');
  });
  it('is null with no limit in force', () => {
    expect(limitText(limitAt(s, at(SAT, 9)), at(SAT, 9))).toBeNull();
  });
  it('separate directions, and a limit that never changes', () => {
    expect(limitText(limitAt(parseBwLimit('2M:10M'), at(MON, 1)), at(MON, 1))).toBe('uploads limited to 2 MiB/s, downloads to 10 MiB/s');
    expect(limitText(limitAt(parseBwLimit('1.5M:off'), at(MON, 1)), at(MON, 1))).toBe('uploads limited to 1.5 MiB/s');
    expect(limitText(limitAt(parseBwLimit('off:300k'), at(MON, 1)), at(MON, 1))).toBe('downloads limited to 300 KiB/s');
  });
  it('formats rates', () => {
    expect([formatRate(2 * M), formatRate(512 * K), formatRate(0.625 * M), formatRate(K * M), formatRate(1000)]).toEqual(['2 MiB/s', '512 KiB/s', '640 KiB/s', '1 GiB/s', '1000 B/s']);
  });
});
