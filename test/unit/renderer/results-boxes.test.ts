/**
 * Source boxes drawn on a rendered page: scaling by the service's page layout, the unit guess when
 * there is none, and agreement with what the sandbox emits for a real invoice PDF.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, degrees } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boxPage, boxRect, boxUnits, fieldPage, fitScale, padRect } from '../../../renderer/src/lib/source-box.js';
import type { SourceBox } from '../../../shared/ui/views.js';
import { processFile } from '../../../sandbox/processing/index.js';
import type { ResultField } from '../../../shared/service/results.js';
import { BODY_SIZE, INVOICE_LAYOUT, PAGE_HEIGHT, PAGE_WIDTH, invoicePdf } from '../../helpers/pdf-fixtures.js';

const LETTER = { width: PAGE_WIDTH, height: PAGE_HEIGHT };
const box = (left: number, top: number, right: number, bottom: number, page: number | null = 0): SourceBox => ({ page, left, top, right, bottom });

describe('boxRect', () => {
  it('draws points at the render scale', () => {
    expect(boxRect(box(100, 200, 150, 212), LETTER, 2, 'points')).toEqual({ x: 200, y: 400, width: 100, height: 24 });
  });

  it('scales by the page layout when the service sent one (pixels of a 200 dpi image)', () => {
    const layout = { width: (PAGE_WIDTH * 200) / 72, height: (PAGE_HEIGHT * 200) / 72 };
    const px = (pt: number): number => (pt * 200) / 72;
    const r = boxRect(box(px(100), px(200), px(150), px(212)), LETTER, 1.5, 'points', layout);
    expect(r?.x).toBeCloseTo(150, 6);
    expect(r?.y).toBeCloseTo(300, 6);
    expect(r?.width).toBeCloseTo(75, 6);
    expect(r?.height).toBeCloseTo(18, 6);
  });

  it('takes coordinates all within 0..1 as fractions of the page', () => {
    const boxes = [box(0.1, 0.25, 0.3, 0.3)];
    expect(boxUnits(boxes)).toBe('fraction');
    const r = boxRect(boxes[0] as SourceBox, LETTER, 1, boxUnits(boxes));
    expect(r?.x).toBeCloseTo(61.2, 6);
    expect(r?.y).toBeCloseTo(198, 6);
    expect(r?.width).toBeCloseTo(122.4, 6);
    expect(r?.height).toBeCloseTo(39.6, 6);
  });

  it('decides units over all boxes of a field, so a tiny box near the corner stays in points', () => {
    expect(boxUnits([box(0, 0, 0.9, 0.8), box(120, 300, 180, 312)])).toBe('points');
    expect(boxUnits([])).toBe('points');
  });

  it('normalises swapped corners and clips to the page; an empty or off-page box is not drawn', () => {
    expect(boxRect(box(150, 212, 100, 200), LETTER, 1, 'points')).toEqual({ x: 100, y: 200, width: 50, height: 12 });
    expect(boxRect(box(600, 780, 700, 900), LETTER, 1, 'points')).toEqual({ x: 600, y: 780, width: 12, height: 12 });
    expect(boxRect(box(700, 800, 710, 810), LETTER, 1, 'points')).toBeNull();
    expect(boxRect(box(10, 10, 10, 20), LETTER, 1, 'points')).toBeNull();
    expect(boxRect(box(Number.NaN, 10, 20, 20), LETTER, 1, 'points')).toBeNull();
  });

  it('pads a box without leaving the page', () => {
    expect(padRect({ x: 1, y: 5, width: 10, height: 10 }, 2, 12, 100)).toEqual({ x: 0, y: 3, width: 12, height: 14 });
  });
});

describe('pages and fitting', () => {
  it('uses the box page, else the document first page', () => {
    expect(boxPage(box(1, 1, 2, 2, 3), [2, 3])).toBe(3);
    expect(boxPage(box(1, 1, 2, 2, null), [2, 3])).toBe(2);
    expect(fieldPage([], [4, 5])).toBe(4);
    expect(fieldPage([box(1, 1, 2, 2, 5)], [4, 5])).toBe(5);
    expect(fieldPage([], [])).toBe(0);
  });

  it('fits the page width within zoom limits', () => {
    expect(fitScale(LETTER, 306)).toBeCloseTo(0.5, 6);
    expect(fitScale(LETTER, 612, 2)).toBeCloseTo(2, 6);
    expect(fitScale(LETTER, 0)).toBe(1);
    expect(fitScale(LETTER, 1_000_000)).toBe(8);
  });
});

describe('boxes the sandbox emits for a real PDF', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'docsync-boxes-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // The engine's mapping (electron/engine/app/views.ts): corners as given, per page.
  const toBox = (f: ResultField): SourceBox => {
    const c = f.source_coordinates?.[0];
    if (!c) throw new Error(`${f.field_name} has no box`);
    return { page: c.page_number, left: c.top_x, top: c.top_y, right: c.bottom_x, bottom: c.bottom_y };
  };

  async function processed(name: string, bytes: Uint8Array) {
    const p = path.join(dir, name);
    await writeFile(p, bytes);
    const file = await processFile(p, name, `/input/${name}`, { passwords: {} });
    const doc = file.documents[0];
    if (!doc) throw new Error('no document');
    const total = doc.fields.find((f) => f.field_name === 'total_amount');
    if (!total) throw new Error('no total_amount');
    const layout = doc.page_layouts?.[0];
    if (!layout) throw new Error('no page layout');
    return { total: toBox(total), layout };
  }

  const INVOICE = { invoiceNumber: 'INV-2041', invoiceDate: 'March 1, 2026', dueDate: 'March 31, 2026', total: '$1,234.50', vendor: 'Acme Supplies' };
  const { valueX, y } = INVOICE_LAYOUT.amountDue;

  it('lands on the printed total at any render scale', async () => {
    const { total, layout } = await processed('invoice.pdf', await invoicePdf(INVOICE));
    expect(layout).toMatchObject({ width: PAGE_WIDTH, height: PAGE_HEIGHT });
    for (const scale of [0.75, 1, 2.5]) {
      const r = boxRect(total, LETTER, scale, boxUnits([total]), { width: layout.width, height: layout.height });
      if (!r) throw new Error('no rect');
      // Text starts at x = valueX; its baseline is PAGE_HEIGHT - y from the top, inside the box.
      expect(r.x).toBeCloseTo(valueX * scale, 0);
      expect(r.y).toBeLessThan((PAGE_HEIGHT - y) * scale);
      expect(r.y + r.height).toBeGreaterThanOrEqual((PAGE_HEIGHT - y) * scale - 0.5);
      expect(r.height).toBeGreaterThan(0.5 * BODY_SIZE * scale);
      expect(r.height).toBeLessThan(2 * BODY_SIZE * scale);
    }
  });

  it('follows a page rotated by 90 degrees (pdf.js renders it landscape)', async () => {
    const doc = await PDFDocument.load(await invoicePdf(INVOICE));
    doc.getPage(0).setRotation(degrees(90));
    const { total, layout } = await processed('rotated.pdf', await doc.save());
    // The rendered (viewport) page is landscape; the layout says so too.
    const rendered = { width: PAGE_HEIGHT, height: PAGE_WIDTH };
    expect(layout).toMatchObject(rendered);
    const r = boxRect(total, rendered, 1, boxUnits([total]), layout);
    if (!r) throw new Error('no rect');
    // Rotating 90 degrees clockwise maps user (x, y) to viewport (y, x): the text runs downwards from (y, valueX).
    expect(r.y).toBeCloseTo(valueX, 0);
    expect(r.height).toBeGreaterThan(r.width);
    expect(r.x).toBeLessThanOrEqual(y + 1);
    expect(r.x + r.width).toBeGreaterThan(y);
  });
});
