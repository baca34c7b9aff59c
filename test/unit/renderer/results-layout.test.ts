/** Pure helpers of the Results screen's layout: the real zoom, the pane widths, run names. */
import { describe, expect, it } from 'vitest';
import { HANDLES, LIST_RAIL, MAIN_MIN, PANE_DEFAULTS, PANE_MIN, fitPanes, keyResize, pageWithListHidden, paneMax, parsePanes } from '../../../renderer/src/lib/pane-sizes.js';
import { formatRunWhen } from '../../../renderer/src/lib/run-format.js';
import { CSS_PX_PER_PT, nextZoom, scaleOf, zoomPercent } from '../../../renderer/src/lib/zoom.js';

describe('zoom', () => {
  it('calls 100 % the paper size on screen: 96 CSS px per inch, 72 points per inch', () => {
    expect(zoomPercent(CSS_PX_PER_PT)).toBe(100);
    // A Letter page (612 pt) drawn 330 px wide is 40 %, not "100 %".
    expect(zoomPercent(330 / 612)).toBe(40);
    expect(zoomPercent(scaleOf(150))).toBe(150);
  });

  it('steps from wherever "fit width" left it to the next step, and stops at the ends', () => {
    expect(nextZoom(54, 1)).toBe(67);
    expect(nextZoom(54, -1)).toBe(50);
    expect(nextZoom(100, 1)).toBe(110);
    expect(nextZoom(100, -1)).toBe(90);
    expect(nextZoom(400, 1)).toBeNull();
    expect(nextZoom(25, -1)).toBeNull();
  });
});

describe('pane sizes', () => {
  it('keeps each pane at its minimum and the fields pane at MAIN_MIN, the page giving way first', () => {
    expect(fitPanes(PANE_DEFAULTS, 1070)).toEqual(PANE_DEFAULTS);
    expect(fitPanes({ tree: 100, page: 100 }, 1070)).toEqual(PANE_MIN);
    const squeezed = fitPanes({ tree: 300, page: 700 }, 1070);
    expect(squeezed.tree).toBe(300);
    expect(squeezed.tree + squeezed.page + HANDLES + MAIN_MIN).toBe(1070);
    // Too narrow for all three: both at their minimum.
    expect(fitPanes({ tree: 300, page: 700 }, 500)).toEqual(PANE_MIN);
    // Width not measured yet: the wish as it is, within the minimums.
    expect(fitPanes({ tree: 250, page: 500 }, 0)).toEqual({ tree: 250, page: 500 });
  });

  it('lets a pane grow up to what the other pane and the fields pane leave', () => {
    expect(paneMax('page', { tree: 240, page: 420 }, 1070)).toBe(1070 - HANDLES - MAIN_MIN - 240);
    expect(paneMax('tree', { tree: 240, page: 420 }, 1070)).toBe(1070 - HANDLES - MAIN_MIN - 420);
  });

  it('moves with the arrow keys (the one pointing away from the pane widens it), Shift for bigger steps, Home and End', () => {
    expect(keyResize('ArrowRight', false, 240, 180, 400, 'ArrowRight')).toBe(256);
    expect(keyResize('ArrowLeft', false, 240, 180, 400, 'ArrowRight')).toBe(224);
    expect(keyResize('ArrowLeft', false, 420, 260, 600, 'ArrowLeft')).toBe(436);
    expect(keyResize('ArrowRight', true, 240, 180, 400, 'ArrowRight')).toBe(304);
    expect(keyResize('ArrowRight', false, 395, 180, 400, 'ArrowRight')).toBe(400);
    expect(keyResize('Home', false, 240, 180, 400, 'ArrowRight')).toBe(180);
    expect(keyResize('End', false, 240, 180, 400, 'ArrowRight')).toBe(400);
    expect(keyResize('ArrowUp', false, 240, 180, 400, 'ArrowRight')).toBeNull();
  });

  it('hiding the list gives its room (less the rail) to the page, as far as the fields pane keeps its minimum', () => {
    // 1280x800: the defaults leave the fields MAIN_MIN + 2 px (a few px of slack), so the page gains the list's width less the rail.
    expect(pageWithListHidden(PANE_DEFAULTS, 1070)).toBe(PANE_DEFAULTS.page + PANE_DEFAULTS.tree + HANDLES / 2 - LIST_RAIL);
    expect(1070 - HANDLES / 2 - LIST_RAIL - pageWithListHidden(PANE_DEFAULTS, 1070)).toBeGreaterThanOrEqual(MAIN_MIN);
    // A narrow total: the page grows only as far as the fields allow, and never shrinks.
    expect(pageWithListHidden({ tree: 300, page: 400 }, 800)).toBe(800 - HANDLES / 2 - LIST_RAIL - MAIN_MIN);
    expect(pageWithListHidden({ tree: 300, page: 600 }, 800)).toBe(600);
    // Not measured yet (0): the full gain.
    expect(pageWithListHidden({ tree: 200, page: 500 }, 0)).toBe(500 + 200 + HANDLES / 2 - LIST_RAIL);
  });

  it('reads stored sizes, falling back to the defaults for anything else', () => {
    expect(parsePanes('{"tree":300,"page":500}')).toEqual({ tree: 300, page: 500 });
    expect(parsePanes('{"tree":"wide"}')).toEqual(PANE_DEFAULTS);
    expect(parsePanes('not json')).toEqual(PANE_DEFAULTS);
    expect(parsePanes(null)).toEqual(PANE_DEFAULTS);
  });
});

describe('formatRunWhen', () => {
  const now = new Date(2026, 10, 24, 20, 0, 0).getTime();

  it('always gives the date with the time, even today (runs of different days are told apart)', () => {
    const today = new Date(2026, 10, 24, 7, 31, 35).getTime();
    const text = formatRunWhen(today, now);
    expect(text).toContain(new Date(today).toLocaleDateString(undefined, { month: 'short', day: 'numeric' }));
    expect(text).toContain(new Date(today).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }));
  });

  it('adds the year for another year, and a dash for no time', () => {
    expect(formatRunWhen(new Date(2025, 0, 2, 9, 0, 0).getTime(), now)).toContain('2025');
    expect(formatRunWhen(null, now)).toBe('—');
  });
});
