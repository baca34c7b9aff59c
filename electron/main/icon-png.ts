/**
 * Tray icons drawn in code: a round, anti-aliased status dot encoded as PNG with node:zlib. No
 * image files to ship or copy through the bundler, and the colours live next to the states.
 */
import { crc32, deflateSync } from 'node:zlib';
import type { TrayState } from './tray-label.js';

export type Rgb = readonly [number, number, number];

export const STATE_COLORS: Record<TrayState, Rgb> = {
  starting: [138, 143, 152],
  idle: [46, 158, 91],
  syncing: [47, 111, 222],
  paused: [208, 138, 0],
  errors: [211, 60, 60],
  offline: [138, 143, 152],
};

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** Encodes RGBA pixels (row-major, 4 bytes each) as a PNG file. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  if (rgba.length !== width * height * 4) throw new Error(`expected ${width * height * 4} bytes of RGBA, got ${rgba.length}`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type: RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    // Each row starts with filter type 0 (none).
    raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * A filled dot of `color` on a transparent square of `size` pixels; `ring` leaves a light centre
 * (the "working" look). Edges are anti-aliased by 4x4 supersampling.
 */
export function dotPixels(size: number, color: Rgb, ring = false): Uint8Array {
  const out = new Uint8Array(size * size * 4);
  const c = size / 2;
  const outer = size / 2 - size / 16;
  const inner = outer * 0.45;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let cover = 0;
      let hole = 0;
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          const d = Math.hypot(x + (sx + 0.5) / 4 - c, y + (sy + 0.5) / 4 - c);
          if (d <= outer) cover++;
          if (ring && d <= inner) hole++;
        }
      }
      const i = (y * size + x) * 4;
      // Inside the ring the dot turns white, so the icon reads on dark and light panels alike.
      const white = hole / 16;
      out[i] = Math.round(color[0] * (1 - white) + 255 * white);
      out[i + 1] = Math.round(color[1] * (1 - white) + 255 * white);
      out[i + 2] = Math.round(color[2] * (1 - white) + 255 * white);
      out[i + 3] = Math.round((cover / 16) * 255);
    }
  }
  return out;
}

/** The tray icon for a state as PNG bytes. */
export function trayIconPng(state: TrayState, size: number): Buffer {
  return encodePng(size, size, dotPixels(size, STATE_COLORS[state], state === 'syncing'));
}
