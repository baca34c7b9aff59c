/** Pure helpers of the Runs and Results screens: snippets, status badges, durations, keyboard moves. */
import { describe, expect, it } from 'vitest';
import { listMove, treeMove, type TreeRow } from '../../../renderer/src/lib/keys.js';
import { confidenceTone, formatConfidence, formatDuration, formatPages, runBadge, runDurationMs, runFiles, runTarget } from '../../../renderer/src/lib/run-format.js';
import { snippetSegments, snippetText } from '../../../renderer/src/lib/snippet.js';

describe('snippetSegments', () => {
  it('marks the terms between \\u0001 and \\u0002', () => {
    expect(snippetSegments('…total \u00011234\u0002.50 due \u0001March\u0002')).toEqual([
      { text: '…total ', mark: false },
      { text: '1234', mark: true },
      { text: '.50 due ', mark: false },
      { text: 'March', mark: true },
    ]);
  });

  it('never shows stray markers and survives unbalanced ones', () => {
    expect(snippetSegments('a\u0002b\u0001c')).toEqual([{ text: 'ab', mark: false }, { text: 'c', mark: true }]);
    expect(snippetSegments('\u0001\u0002')).toEqual([]);
    expect(snippetText('x \u0001y\u0002 z')).toBe('x y z');
  });

  it('keeps text that looks like HTML as text (rendered by Svelte as text, not markup)', () => {
    expect(snippetSegments('<b>\u0001x\u0002</b>')).toEqual([{ text: '<b>', mark: false }, { text: 'x', mark: true }, { text: '</b>', mark: false }]);
  });
});

describe('runs', () => {
  const base = { status: 'COMPLETE' as const, reviewWaiting: false, startMs: 1_000, finishMs: 66_000, createdMs: 500 };

  it('shows a run stopped at a checkpoint as waiting for review, not as an error', () => {
    expect(runBadge({ ...base, status: 'STOPPED_AT_CHECKPOINT' })).toEqual({ label: 'waiting for review', tone: 'wait' });
    expect(runBadge({ ...base, status: 'RUNNING', reviewWaiting: true }).tone).toBe('wait');
    expect(runBadge({ ...base, status: 'FAILED' }).tone).toBe('bad');
    expect(runBadge({ ...base, status: null }).label).toBe('starting');
  });

  it('does not show a completed run with failed files as a success', () => {
    expect(runBadge({ ...base, failed: 0 })).toEqual({ label: 'complete', tone: 'ok' });
    expect(runBadge({ ...base, failed: 2 })).toEqual({ label: '2 failed', tone: 'bad' });
    expect(runFiles({ status: 'COMPLETE', files: 6, done: 4, failed: 2 })).toBe('4 of 6 done, 2 failed');
    expect(runFiles({ status: 'COMPLETE', files: 6, done: 6, failed: 0 })).toBe('6 files');
    expect(runFiles({ status: 'RUNNING', files: 1, done: 0, failed: 0 })).toBe('1 file');
  });

  it('measures finished runs start to finish and running runs to now', () => {
    expect(runDurationMs(base, 1e9)).toBe(65_000);
    expect(runDurationMs({ ...base, status: 'RUNNING', finishMs: null }, 31_000)).toBe(30_000);
    expect(runDurationMs({ ...base, status: null, startMs: null, finishMs: null }, 2_500)).toBe(2_000);
    expect(runDurationMs({ ...base, status: 'FAILED', startMs: null, finishMs: null }, 2_500)).toBeNull();
    expect(formatDuration(65_000)).toBe('1 min 05 s');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(7_620_000)).toBe('2 h 07 min');
    expect(formatDuration(null)).toBe('—');
  });

  it('names the deployment, else the app', () => {
    expect(runTarget({ deploymentId: 'sandbox-invoices', appId: 'x' })).toBe('sandbox-invoices');
    expect(runTarget({ deploymentId: null, appId: 'a1' })).toBe('app a1');
    expect(runTarget({ deploymentId: null, appId: null })).toBe('—');
  });

  it('formats confidences and flags low ones', () => {
    expect(formatConfidence(0.934)).toBe('93 %');
    expect(formatConfidence(null)).toBe('—');
    expect(confidenceTone(0.95)).toBe('ok');
    expect(confidenceTone(0.7)).toBe('wait');
    expect(confidenceTone(0.2)).toBe('bad');
  });
});

describe('keyboard moves', () => {
  it('moves through a list and stops at its ends', () => {
    expect(listMove('ArrowDown', 0, 3)).toBe(1);
    expect(listMove('ArrowDown', 2, 3)).toBe(2);
    expect(listMove('ArrowUp', 0, 3)).toBe(0);
    expect(listMove('End', 0, 3)).toBe(2);
    expect(listMove('PageDown', 0, 30, 10)).toBe(10);
    expect(listMove('ArrowDown', -1, 3)).toBe(0);
    expect(listMove('x', 0, 3)).toBeNull();
    expect(listMove('ArrowDown', 0, 0)).toBeNull();
  });

  const rows: TreeRow[] = [
    { key: 'f', level: 1, parent: null, expandable: true, expanded: true },
    { key: 'r', level: 2, parent: 'f', expandable: true, expanded: false },
    { key: 'g', level: 1, parent: null, expandable: true, expanded: false },
  ];

  it('opens, enters, closes and leaves tree nodes like a file manager', () => {
    expect(treeMove('ArrowRight', rows, 1)).toEqual({ kind: 'expand', key: 'r' });
    expect(treeMove('ArrowRight', rows, 0)).toEqual({ kind: 'focus', index: 1 });
    expect(treeMove('ArrowLeft', rows, 1)).toEqual({ kind: 'focus', index: 0 });
    expect(treeMove('ArrowLeft', rows, 0)).toEqual({ kind: 'collapse', key: 'f' });
    expect(treeMove('ArrowLeft', rows, 2)).toEqual({ kind: 'none' });
    expect(treeMove('Enter', rows, 2)).toEqual({ kind: 'activate', index: 2 });
    expect(treeMove('ArrowDown', rows, 1)).toEqual({ kind: 'focus', index: 2 });
  });
});

describe('formatPages: the service\'s page_numbers count from 1 and are shown as they are', () => {
  it.each<[number[], string, string]>([
    [[], 'no pages', ''],
    [[1], 'page 1', 'p. 1'],
    [[2, 3], 'pages 2–3', 'pp. 2–3'],
    [[3, 4, 5], 'pages 3–5', 'pp. 3–5'],
  ])('%j: %j / %j', (pages, long, short) => {
    expect(formatPages(pages)).toBe(long);
    expect(formatPages(pages, 'short')).toBe(short);
  });
});
