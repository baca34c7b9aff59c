/** Scoring the service's reading of scans: matches, boxes on or off the value, pages, page sizes. */
import { describe, expect, it } from 'vitest';
import type { Scan } from '../../helpers/scans.js';
import { report, score } from '../../helpers/scans/score.js';
import type { ReadFile } from '../../helpers/scans/score.js';

const scan: Scan = {
  name: 'a.png',
  format: 'png',
  bytes: Buffer.alloc(0),
  pages: [{ width: 1000, height: 2000 }],
  made: 'PNG, 200 dpi',
  fields: [
    { name: 'invoice_number', value: 'INV-1', page: 0, box: { x0: 100, y0: 100, x1: 200, y1: 120 } },
    { name: 'total_amount', value: '12.50', page: 0, box: { x0: 600, y0: 900, x1: 700, y1: 920 }, alsoAt: [{ x0: 600, y0: 800, x1: 700, y1: 820 }] },
  ],
};

const at = (x0: number, y0: number, x1: number, y1: number, page = 0) => [{ top_x: x0, top_y: y0, bottom_x: x1, bottom_y: y1, page_number: page }];

function file(fields: ReadFile['documents'][number]['fields'], size = { width: 1000, height: 2000 }): ReadFile {
  return { documents: [{ class_name: 'Invoice', fields, page_layouts: [{ page_number: 0, ...size }] }] };
}

describe('score', () => {
  it('counts exact values and boxes on the printed value, or on another place it is printed', () => {
    const s = score([scan], new Map([['a.png', file([
      { field_name: 'invoice_number', value: 'INV-1', source_coordinates: at(105, 98, 195, 122) },
      { field_name: 'total_amount', value: '12.50', source_coordinates: at(600, 800, 700, 820) },
    ])]]));
    expect(s).toMatchObject({ scans: 1, pages: 1, fields: 2, matched: 2, accuracy: 1, onPosition: 2, boxAgreement: 1, layoutMismatches: [] });
  });

  it('fails a value that differs by a character, and a box elsewhere or on another page', () => {
    const s = score([scan], new Map([['a.png', file([
      { field_name: 'invoice_number', value: 'INV-1', source_coordinates: at(105, 98, 195, 122, 1) },
      { field_name: 'total_amount', value: '12.59', source_coordinates: at(600, 900, 700, 920) },
    ])]]));
    expect(s).toMatchObject({ matched: 1, accuracy: 0.5, onPosition: 0, boxAgreement: 0 });
    const text = report(s);
    expect(text).toContain('MISREAD a.png (PNG, 200 dpi) total_amount: expected "12.50", got "12.59"');
    expect(text).toContain('OFF POSITION a.png (PNG, 200 dpi) invoice_number: IoU 0');
    const off = score([scan], new Map([['a.png', file([{ field_name: 'invoice_number', value: 'INV-1', source_coordinates: at(300, 100, 400, 120) }])]]));
    expect(off).toMatchObject({ matched: 1, onPosition: 0 });
  });

  it('counts a scan with no results, or no value, as misread; a matched value with no box as off position', () => {
    expect(score([scan], new Map())).toMatchObject({ matched: 0, accuracy: 0 });
    const s = score([scan], new Map([['a.png', file([{ field_name: 'invoice_number', value: 'INV-1' }, { field_name: 'total_amount', value: '' }])]]));
    expect(s).toMatchObject({ matched: 1, onPosition: 0 });
    expect(s.details.find((d) => d.field === 'total_amount')?.got).toBeNull();
  });

  it('names a page whose size is not the scan page size', () => {
    const s = score([scan], new Map([['a.png', file([], { width: 612, height: 792 })]]));
    expect(s.layoutMismatches).toEqual(['a.png page 0: service 612 x 792, scan 1000 x 2000']);
  });
});
