/** What a scanner does to a page: a slight skew, a quarter turn, blur and noise (all seeded). */
import sharp from 'sharp';
import type { Sharp } from 'sharp';
import type { QuarterTurn } from './geometry.js';
import type { Random } from './random.js';
import type { Gray } from './render.js';

async function gray(img: Sharp): Promise<Gray> {
  const { data, info } = await img.greyscale().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected one grey channel, got ${info.channels}`);
  return { data, width: info.width, height: info.height };
}

const load = (g: Gray): Sharp => sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } });

/** Turned by `deg` clockwise on a white canvas grown to hold the whole page. */
export const skew = (g: Gray, deg: number): Promise<Gray> => (deg === 0 ? Promise.resolve(g) : gray(load(g).rotate(deg, { background: '#ffffff' })));

export const turn = (g: Gray, t: QuarterTurn): Promise<Gray> => (t === 0 ? Promise.resolve(g) : gray(load(g).rotate(t)));

/** Standard normal sample (Box-Muller). */
function normal(r: Random): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/**
 * `amount` 0..1: a slight blur (scanner optics), grey noise of up to 40 levels' deviation, and dust
 * specks of 1-3 px. Kept within what a real office scan shows, so the text stays legible.
 */
export async function noise(g: Gray, amount: number, r: Random): Promise<Gray> {
  if (amount <= 0) return g;
  const blurred = await gray(load(g).blur(0.3 + 0.5 * amount));
  const out = Buffer.from(blurred.data);
  const sigma = 40 * amount;
  for (let i = 0; i < out.length; i++) out[i] = Math.max(0, Math.min(255, out[i]! + sigma * normal(r)));
  const specks = Math.round(out.length * 0.0001 * amount);
  for (let k = 0; k < specks; k++) {
    const x = Math.floor(r() * g.width);
    const y = Math.floor(r() * g.height);
    const size = 1 + Math.floor(r() * 3);
    for (let dy = 0; dy < size && y + dy < g.height; dy++) {
      for (let dx = 0; dx < size && x + dx < g.width; dx++) out[(y + dy) * g.width + x + dx] = 40 + Math.floor(r() * 60);
    }
  }
  return { data: out, width: blurred.width, height: blurred.height };
}
