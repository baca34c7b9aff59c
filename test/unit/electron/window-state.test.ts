// The remembered window size and position (electron/main/window-state.ts): garbled files are
// ignored, and saved bounds are only used where a display still shows the window's title bar.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_SIZE, MIN_SIZE, parseWindowState, placeWindow, readWindowState, WINDOW_STATE_FILE, writeWindowState, type Rect,
} from '../../../electron/main/window-state.js';

const laptop: Rect = { x: 0, y: 0, width: 1440, height: 870 };
// A second monitor to the right of the laptop.
const monitor: Rect = { x: 1440, y: 0, width: 2560, height: 1400 };

describe('parseWindowState', () => {
  it('accepts a saved state and rounds it', () => {
    expect(parseWindowState({ bounds: { x: 10.4, y: 20, width: 900, height: 700.6 }, maximized: true })).toEqual({
      bounds: { x: 10, y: 20, width: 900, height: 701 }, maximized: true,
    });
  });

  it.each([
    ['null', null],
    ['a string', 'x'],
    ['no bounds', { maximized: true }],
    ['a missing number', { bounds: { x: 1, y: 2, width: 3 } }],
    ['a string number', { bounds: { x: '1', y: 2, width: 3, height: 4 } }],
    ['NaN', { bounds: { x: Number.NaN, y: 2, width: 3, height: 4 } }],
    ['zero width', { bounds: { x: 1, y: 2, width: 0, height: 4 } }],
    ['absurd numbers', { bounds: { x: 1e12, y: 2, width: 3, height: 4 } }],
  ])('rejects %s', (_name, raw) => {
    expect(parseWindowState(raw)).toBeNull();
  });

  it('treats anything but true as not maximized', () => {
    expect(parseWindowState({ bounds: { x: 0, y: 0, width: 800, height: 600 }, maximized: 'yes' })?.maximized).toBe(false);
  });
});

describe('placeWindow', () => {
  it('uses the default size, centred, when nothing was saved', () => {
    expect(placeWindow(null, [laptop])).toEqual({ width: DEFAULT_SIZE.width, height: DEFAULT_SIZE.height, maximized: false });
  });

  it('shrinks the default size to a small screen but not below the minimum', () => {
    expect(placeWindow(null, [{ x: 0, y: 0, width: 1024, height: 600 }])).toEqual({ width: 1024, height: 600, maximized: false });
    expect(placeWindow(null, [{ x: 0, y: 0, width: 640, height: 480 }])).toEqual({ width: MIN_SIZE.width, height: MIN_SIZE.height, maximized: false });
  });

  it('restores saved bounds that are on a display', () => {
    const saved = { bounds: { x: 1600, y: 100, width: 1200, height: 900 }, maximized: false };
    expect(placeWindow(saved, [laptop, monitor])).toEqual({ x: 1600, y: 100, width: 1200, height: 900, maximized: false });
  });

  it('keeps maximized', () => {
    const saved = { bounds: { x: 100, y: 50, width: 1000, height: 700 }, maximized: true };
    expect(placeWindow(saved, [laptop])).toMatchObject({ x: 100, y: 50, maximized: true });
  });

  it('lets the OS place the window when its monitor is gone, keeping the size that fits', () => {
    const saved = { bounds: { x: 1600, y: 100, width: 2000, height: 1200 }, maximized: false };
    expect(placeWindow(saved, [laptop])).toEqual({ width: 1440, height: 870, maximized: false });
  });

  it('does not trust a window whose title bar is above the screen', () => {
    const saved = { bounds: { x: 100, y: -600, width: 1000, height: 700 }, maximized: false };
    expect(placeWindow(saved, [laptop])).toEqual({ width: 1000, height: 700, maximized: false });
  });

  it('pulls a window hanging over an edge back onto its display', () => {
    const saved = { bounds: { x: 1000, y: 500, width: 1000, height: 700 }, maximized: false };
    expect(placeWindow(saved, [laptop])).toEqual({ x: 440, y: 170, width: 1000, height: 700, maximized: false });
  });

  it('picks the display holding most of the window and fits the window to it', () => {
    const saved = { bounds: { x: 1300, y: 0, width: 3000, height: 1600 }, maximized: false };
    expect(placeWindow(saved, [laptop, monitor])).toEqual({ x: 1440, y: 0, width: 2560, height: 1400, maximized: false });
  });
});

describe('window state file', () => {
  let home: string;
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('round-trips through the data home and ignores a garbled file', () => {
    home = mkdtempSync(join(tmpdir(), 'docsync-win-'));
    expect(readWindowState(home)).toBeNull();
    writeWindowState(home, { bounds: { x: 5, y: 6, width: 900, height: 650 }, maximized: true });
    expect(JSON.parse(readFileSync(join(home, WINDOW_STATE_FILE), 'utf8'))).toEqual({ bounds: { x: 5, y: 6, width: 900, height: 650 }, maximized: true });
    expect(readWindowState(home)).toEqual({ bounds: { x: 5, y: 6, width: 900, height: 650 }, maximized: true });
    writeFileSync(join(home, WINDOW_STATE_FILE), '{"bounds": {"x": 1,');
    expect(readWindowState(home)).toBeNull();
  });
});
