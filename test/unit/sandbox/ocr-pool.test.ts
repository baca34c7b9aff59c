/** The OCR worker pool with real tesseract.js workers: bounded, lazy, reused, closed. */
import { afterEach, describe, expect, it } from 'vitest';
import { OcrPool } from '../../../sandbox/processing/ocr/pool.js';
import { invoicePng } from '../../helpers/ocr-drawings.js';

const pools: OcrPool[] = [];
const pool = (opts: ConstructorParameters<typeof OcrPool>[0]): OcrPool => {
  const p = new OcrPool(opts);
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const png = invoicePng().png;

describe('OcrPool', () => {
  it('starts no worker until there is a page to read', () => {
    expect(pool({ size: 2 }).workers).toBe(0);
  });

  it('runs at most `size` pages at once and reuses its workers', async () => {
    const p = pool({ size: 2 });
    let now = 0;
    let most = 0;
    const seen = new Set<unknown>();
    const texts = await Promise.all(
      Array.from({ length: 5 }, () =>
        p.run(async (w) => {
          seen.add(w);
          most = Math.max(most, ++now);
          try {
            return (await w.recognize(png)).data.text;
          } finally {
            now--;
          }
        }),
      ),
    );
    expect(texts.every((t) => t.includes('INV-4821'))).toBe(true);
    expect(most).toBe(2);
    expect(seen.size).toBe(2);
    expect(p.workers).toBe(2);
    expect(p.active).toBe(0);
  });

  it('defaults to one worker per core', async () => {
    const { availableParallelism } = await import('node:os');
    expect(pool({}).size).toBe(availableParallelism());
  });

  it('replaces a worker whose job failed', async () => {
    const p = pool({ size: 1 });
    await expect(p.run(async () => Promise.reject(new Error('page fell apart')))).rejects.toThrow('page fell apart');
    expect(p.workers).toBe(0);
    expect(await p.run(async (w) => (await w.recognize(png)).data.text)).toContain('Northwind');
    expect(p.workers).toBe(1);
  });

  it('stops idle workers after its idle time, and starts again when needed', async () => {
    const p = pool({ size: 1, idleMs: 50 });
    await p.run(async (w) => w.recognize(png));
    expect(p.workers).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(p.workers).toBe(0);
    await p.run(async (w) => w.recognize(png));
    expect(p.workers).toBe(1);
  });

  it('refuses work once closed, in words', async () => {
    const p = pool({ size: 1 });
    await p.run(async (w) => w.recognize(png));
    await p.close();
    expect(p.workers).toBe(0);
    await expect(p.run(async () => 1)).rejects.toThrow('OCR is not available: the sandbox is shutting down');
  });
});
