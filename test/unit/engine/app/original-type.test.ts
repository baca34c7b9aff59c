/** What an original on disk is, read from its first bytes in a real folder (names that lie included). */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaTypeOf, originalOnDisk } from '../../../../electron/engine/app/original-type.js';
import { g4Tiff, jpeg, png } from '../../../helpers/images.js';
import { invoicePdf } from '../../../helpers/pdf-fixtures.js';

let dir: string;
const BAR = { x: 1, y: 1, width: 4, height: 4 };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docsync-original-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('originalOnDisk', () => {
  it('tells PDF, PNG, JPEG and TIFF by content, whatever the name', async () => {
    const files: [string, Buffer, string][] = [
      ['inv.pdf', await invoicePdf({ invoiceNumber: 'INV-1', invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: '$1.00', vendor: 'V' }), 'application/pdf'],
      ['scan.png', await png(8, 8, BAR), 'image/png'],
      ['photo.jpg', await jpeg(8, 8, BAR), 'image/jpeg'],
      // A scanner that names its TIFF .jpg.
      ['fax.jpg', await g4Tiff(16, 16, [BAR, BAR]), 'image/tiff'],
    ];
    for (const [name, bytes, type] of files) {
      await writeFile(join(dir, name), bytes);
      expect(await originalOnDisk(join(dir, name)), name).toEqual({ present: true, type });
      expect(mediaTypeOf(bytes)).toBe(type);
    }
  });

  it('present but not drawable: a text file named .pdf; an empty file', async () => {
    await writeFile(join(dir, 'notes.pdf'), 'just text');
    await writeFile(join(dir, 'empty.tif'), '');
    expect(await originalOnDisk(join(dir, 'notes.pdf'))).toEqual({ present: true, type: null });
    expect(await originalOnDisk(join(dir, 'empty.tif'))).toEqual({ present: true, type: null });
    expect(mediaTypeOf(Buffer.from('just text'))).toBe('application/octet-stream');
  });

  it('absent when gone or unreadable, without throwing', async () => {
    expect(await originalOnDisk(join(dir, 'gone.png'))).toEqual({ present: false, type: null });
    expect(await originalOnDisk(dir)).toMatchObject({ type: null });
    if (process.getuid?.() !== 0) {
      await writeFile(join(dir, 'locked.png'), await png(8, 8, BAR));
      await chmod(join(dir, 'locked.png'), 0o000);
      expect(await originalOnDisk(join(dir, 'locked.png'))).toEqual({ present: false, type: null });
    }
  });
});
