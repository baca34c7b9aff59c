// How long the renderer takes to decode a scanned TIFF page (utif2, in JavaScript, on the page's
// own thread: lib/tiff.ts), against libvips (sharp, native) decoding the same page in the same run.
// Pages are letter size at 200 and 300 dpi, bilevel CCITT G4 as office scanners write them, with
// word-like marks over the text area so the fax coding has real work to do. Run: npm run bench:tiff
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { readTiff } from '../renderer/src/lib/tiff.js';

const RUNS = 9;

/** A seeded letter page of `dpi`: rows of word-sized black marks, like printed lines of text. */
function page(dpi: number, seed: number): { data: Buffer; width: number; height: number } {
  const width = Math.round(8.5 * dpi);
  const height = Math.round(11 * dpi);
  const data = Buffer.alloc(width * height, 255);
  let s = seed;
  const rnd = (): number => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const line = Math.round(dpi / 6);
  for (let y = dpi; y < height - dpi; y += line) {
    let x = dpi;
    while (x < width - dpi) {
      const w = Math.round(dpi * (0.15 + rnd() * 0.6));
      const h = Math.round(line * 0.55);
      // Solid marks with ragged edges, as printed glyphs scan; plus a speck of dust now and then.
      for (let yy = y; yy < y + h; yy++) for (let xx = x; xx < Math.min(x + w, width - dpi); xx++) if ((xx + yy) % 7 !== 0 || rnd() < 0.5) data[yy * width + xx] = 0;
      if (rnd() < 0.05) data[Math.floor(rnd() * height) * width + Math.floor(rnd() * width)] = 0;
      x += w + Math.round(dpi * 0.08);
    }
  }
  return { data, width, height };
}

async function g4(pages: { data: Buffer; width: number; height: number }[], dpi: number): Promise<Buffer> {
  const [first] = pages;
  if (!first) throw new Error('no page');
  return sharp(Buffer.concat(pages.map((p) => p.data)), { raw: { width: first.width, height: first.height * pages.length, channels: 1, pageHeight: first.height } })
    .toColourspace('b-w')
    .tiff({ compression: 'ccittfax4', bitdepth: 1, xres: dpi / 25.4, yres: dpi / 25.4 })
    .toBuffer();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function time(fn: () => unknown | Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

for (const dpi of [200, 300]) {
  const bytes = await g4([page(dpi, 1), page(dpi, 2), page(dpi, 3)], dpi);
  const ours: number[] = [];
  const open: number[] = [];
  const vips: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const p = i % 3;
    open.push(await time(() => readTiff(bytes)));
    const t = readTiff(bytes);
    ours.push(await time(() => t.rgba(p)));
    vips.push(await time(() => sharp(bytes, { page: p }).ensureAlpha().raw().toBuffer()));
  }
  const [o, v] = [median(ours), median(vips)];
  const { width, height } = readTiff(bytes).pages[0] as { width: number; height: number };
  console.log(
    `${dpi} dpi letter page (${width}x${height}, G4 file of 3 pages ${(bytes.length / 1024).toFixed(0)} KB): ` +
      `open ${median(open).toFixed(1)} ms; one page to RGBA: utif2 ${o.toFixed(1)} ms, sharp/libvips ${v.toFixed(1)} ms ` +
      `(ratio utif2/libvips ${(o / v).toFixed(2)}; medians of ${RUNS})`,
  );
}
