// The navigation store (renderer/src/lib/state/nav.svelte.ts): which screen is shown and what the
// Results screen was asked to open. No engine involved.
import { describe, expect, it } from 'vitest';
import { nav } from '../../../../renderer/src/lib/state/nav.svelte.js';

describe('nav store', () => {
  it('starts on Activity; go() switches screens and keeps the last results target', () => {
    expect(nav.screen).toBe('activity');
    expect(nav.results).toEqual({});
    nav.go('folders');
    expect(nav.screen).toBe('folders');
    nav.go('connection');
    expect(nav.screen).toBe('connection');
    expect(nav.results).toEqual({});
  });

  it('openResults() shows Results with a new target object each time (the Results store opens each once)', () => {
    const first = { runId: 3, fileId: 7 };
    nav.openResults(first);
    expect(nav.screen).toBe('results');
    expect(nav.results).toBe(first);
    nav.go('runs');
    expect(nav.results).toBe(first);
    const again = { runId: 3, fileId: 7 };
    nav.openResults(again);
    expect(nav.results).toBe(again);
    expect(nav.results).not.toBe(first);
  });
});
