/**
 * The window's last size and position, kept in a small JSON file in the data home. Pure logic
 * plus plain file IO (no electron import) so it is unit tested under Node: the saved bounds are
 * only trusted after checking them against the displays present now (a monitor may be gone).
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const WINDOW_STATE_FILE = 'window-state.json';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  bounds: Rect;
  maximized: boolean;
}

/** What BrowserWindow gets: no x/y means "let the OS centre it". */
export interface Placement {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
}

export const DEFAULT_SIZE = { width: 1180, height: 780 } as const;
export const MIN_SIZE = { width: 760, height: 520 } as const;
/** How much of the title bar must be on a display for the saved position to be kept. */
const GRAB = 48;

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < 1e6;

/** The saved state, or null when the file is missing, garbled or from something else. */
export function parseWindowState(raw: unknown): WindowState | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { bounds, maximized } = raw as { bounds?: unknown; maximized?: unknown };
  if (typeof bounds !== 'object' || bounds === null) return null;
  const b = bounds as Record<string, unknown>;
  if (!isInt(b.x) || !isInt(b.y) || !isInt(b.width) || !isInt(b.height)) return null;
  if (b.width <= 0 || b.height <= 0) return null;
  return { bounds: { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width), height: Math.round(b.height) }, maximized: maximized === true };
}

const overlap = (a: Rect, b: Rect): number =>
  Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));

/**
 * Where to open the window: the saved bounds when their title bar is reachable on a display of
 * `workAreas`, shrunk to fit that display; else the saved (or default) size, centred by the OS.
 */
export function placeWindow(saved: WindowState | null, workAreas: readonly Rect[]): Placement {
  const largest = workAreas.reduce<Rect | null>((m, a) => (!m || a.width * a.height > m.width * m.height ? a : m), null);
  const fit = (w: number, h: number, area: Rect | null): { width: number; height: number } => ({
    width: Math.max(MIN_SIZE.width, Math.min(w, area?.width ?? w)),
    height: Math.max(MIN_SIZE.height, Math.min(h, area?.height ?? h)),
  });
  if (!saved) return { ...fit(DEFAULT_SIZE.width, DEFAULT_SIZE.height, largest), maximized: false };
  const b = saved.bounds;
  // The display holding most of the window; the title bar strip must be on it to be grabbed.
  const titleBar: Rect = { x: b.x, y: b.y, width: b.width, height: Math.min(GRAB, b.height) };
  const home = workAreas
    .map((a) => ({ a, o: overlap(b, a) }))
    .sort((p, q) => q.o - p.o)
    .find(({ a }) => overlap(titleBar, a) >= GRAB * Math.min(GRAB, b.width))?.a;
  if (!home) return { ...fit(b.width, b.height, largest), maximized: saved.maximized };
  const size = fit(b.width, b.height, home);
  // Pull the window fully onto its display when it hangs over an edge.
  const x = Math.min(Math.max(b.x, home.x), home.x + Math.max(0, home.width - size.width));
  const y = Math.min(Math.max(b.y, home.y), home.y + Math.max(0, home.height - size.height));
  return { x, y, ...size, maximized: saved.maximized };
}

export function readWindowState(home: string): WindowState | null {
  try {
    return parseWindowState(JSON.parse(readFileSync(join(home, WINDOW_STATE_FILE), 'utf8')));
  } catch {
    return null;
  }
}

/** Written through a temporary file so a crash mid-write leaves the previous state. */
export function writeWindowState(home: string, state: WindowState): void {
  const file = join(home, WINDOW_STATE_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state)}\n`);
  renameSync(tmp, file);
}
