/**
 * The values the service should return for a scanned invoice: what the sandbox reads from the same
 * invoice as a text-layer PDF (so the expectation follows the sandbox's own normalisation of dates and
 * amounts), with each value's box taken from the printed layout (layout-boxes.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processFile } from '../../../sandbox/processing/index.js';
import type { InvoiceOptions } from '../pdf-fixtures.js';
import type { Box } from './geometry.js';
import { otherBoxes, valueBoxes } from './layout-boxes.js';

export interface ExpectedField {
  name: string;
  value: string;
  /** PDF points, top-left origin, page 0. */
  box: Box;
  /** Other places the same value is printed (same units). */
  alsoAt: Box[];
  /** Where the sandbox's text-layer reader put it (same units): a cross-check of `box`. */
  textLayerBox: Box | null;
}

export async function expectedFields(o: InvoiceOptions, pdf: Uint8Array): Promise<ExpectedField[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'docsync-scan-oracle-'));
  try {
    const file = path.join(dir, 'invoice.pdf');
    await writeFile(file, pdf);
    const read = await processFile(file, 'invoice.pdf', '/invoice.pdf', { passwords: {} });
    const doc = read.documents[0];
    if (doc?.class_name !== 'Invoice') throw new Error(`the text version of invoice ${o.invoiceNumber} is not read as an invoice`);
    const boxes = await valueBoxes(o);
    const others = await otherBoxes(o);
    return doc.fields
      .filter((f) => f.value !== '')
      .map((f) => {
        const box = boxes[f.field_name];
        if (!box) throw new Error(`no printed position known for field ${f.field_name}`);
        const c = f.source_coordinates?.[0];
        const textLayerBox = c ? { x0: c.top_x, y0: c.top_y, x1: c.bottom_x, y1: c.bottom_y } : null;
        return { name: f.field_name, value: f.value, box, alsoAt: others[f.field_name] ?? [], textLayerBox };
      });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
