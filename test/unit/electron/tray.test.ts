// The tray's wording and icons (electron/main/tray-label.ts, icon-png.ts): one state by priority,
// counts in words, and real PNG files a desktop panel can show.
import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FILE_STATES, type FileState } from '../../../shared/file-states.js';
import type { StatusView } from '../../../shared/ui/views.js';
import { dotPixels, encodePng, STATE_COLORS, trayIconPng } from '../../../electron/main/icon-png.js';
import { trayLabel } from '../../../electron/main/tray-label.js';

function status(counts: Partial<Record<FileState, number>>, more: Partial<StatusView> = {}): StatusView {
  const all = Object.fromEntries(FILE_STATES.map((s) => [s, counts[s] ?? 0])) as Record<FileState, number>;
  return { counts: all, transfers: [], paused: false, activeRuns: 0, reviewWaiting: 0, bandwidth: null, ...more };
}

describe('trayLabel', () => {
  it('says starting before the engine reports', () => {
    expect(trayLabel(null)).toMatchObject({ state: 'starting', label: 'Starting…' });
  });

  it('is idle when nothing is left to do', () => {
    expect(trayLabel(status({ done: 120, skipped: 3 }))).toEqual({ state: 'idle', label: 'Up to date', tooltip: 'DocSync: Up to date', toggle: 'Pause syncing' });
  });

  it('counts every state with work ahead as syncing', () => {
    const s = status({ discovered: 1, stable: 1, queued: 1000, uploading: 2, uploaded: 1, running: 5, done: 9 });
    expect(trayLabel(s)).toMatchObject({ state: 'syncing', label: 'Syncing 1,010 files' });
    expect(trayLabel(status({ queued: 1 })).label).toBe('Syncing 1 file');
  });

  it('mentions errors while syncing and shows them alone when idle', () => {
    expect(trayLabel(status({ queued: 2, failed: 1 })).label).toBe('Syncing 2 files, 1 error');
    expect(trayLabel(status({ failed: 3, done: 4 }))).toMatchObject({ state: 'errors', label: '3 files failed' });
  });

  it('puts paused first and offers resume', () => {
    expect(trayLabel(status({ queued: 4, failed: 2 }, { paused: true }))).toMatchObject({
      state: 'paused', label: 'Paused (4 files waiting), 2 errors', toggle: 'Resume syncing',
    });
    expect(trayLabel(status({}, { paused: true })).label).toBe('Paused');
  });

  it('shows offline and refused connections over syncing', () => {
    const offline = { kind: 'offline', url: 'https://x', reason: 'ECONNREFUSED', sinceMs: 1 } as const;
    expect(trayLabel(status({ queued: 2 }), offline)).toMatchObject({ state: 'offline', label: 'Offline (2 files waiting)' });
    expect(trayLabel(status({}), { kind: 'refused', url: 'https://x', reason: '401' })).toMatchObject({ state: 'offline', label: 'Service refused access' });
    expect(trayLabel(status({ queued: 2 }), { kind: 'online', url: 'https://x' }).state).toBe('syncing');
    expect(trayLabel(status({ queued: 2 }), { kind: 'connecting', url: 'https://x' }).state).toBe('syncing');
    expect(trayLabel(status({ done: 2 }), { kind: 'none' })).toMatchObject({ state: 'offline', label: 'Not signed in' });
  });

  it('adds runs waiting for review', () => {
    expect(trayLabel(status({ done: 1 }, { reviewWaiting: 2 })).label).toBe('Up to date, 2 runs waiting for review');
  });
});

/** Splits a PNG into chunks, checking each CRC. */
function chunks(png: Buffer): { type: string; data: Buffer }[] {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const out: { type: string; data: Buffer }[] = [];
  for (let o = 8; o < png.length; ) {
    const len = png.readUInt32BE(o);
    const type = png.toString('latin1', o + 4, o + 8);
    const data = png.subarray(o + 8, o + 8 + len);
    expect(png.readUInt32BE(o + 8 + len)).toBe(crc32(png.subarray(o + 4, o + 8 + len)) >>> 0);
    out.push({ type, data });
    o += 12 + len;
  }
  return out;
}

describe('tray icons', () => {
  it('encodes a valid RGBA PNG whose pixels decode back', () => {
    const png = trayIconPng('errors', 32);
    const cs = chunks(png);
    expect(cs.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const ihdr = cs[0]!.data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([32, 32, 8, 6]);
    const raw = inflateSync(cs[1]!.data);
    expect(raw.length).toBe((32 * 4 + 1) * 32);
    const px = (x: number, y: number): number[] => [...raw.subarray(y * 129 + 1 + x * 4, y * 129 + 1 + x * 4 + 4)];
    expect(px(16, 16)).toEqual([...STATE_COLORS.errors, 255]);
    expect(px(0, 0)[3]).toBe(0);
    // Anti-aliased: the rim has partly transparent pixels.
    const alphas = Array.from({ length: 32 * 32 }, (_, i) => px(i % 32, Math.floor(i / 32))[3]!);
    expect(alphas.filter((a) => a > 0 && a < 255).length).toBeGreaterThan(20);
  });

  it('draws the syncing icon as a ring with a light centre', () => {
    const ring = dotPixels(32, STATE_COLORS.syncing, true);
    const centre = ring.subarray((16 * 32 + 16) * 4, (16 * 32 + 16) * 4 + 4);
    expect([...centre]).toEqual([255, 255, 255, 255]);
    expect(trayIconPng('syncing', 16).equals(trayIconPng('idle', 16))).toBe(false);
  });

  it('refuses pixel data of the wrong size', () => {
    expect(() => encodePng(2, 2, new Uint8Array(15))).toThrow(/expected 16 bytes/);
  });
});
