/** Hot-folder settings (issue 4, "Hot folders"): defaults, and one clear message per bad setting. */
import { describe, expect, it } from 'vitest';
import { FOLDER_DEFAULTS, validateFolderSettings } from '../../../../electron/engine/watch/folder-settings.js';

const errorsOf = (raw: unknown): string[] => {
  const r = validateFolderSettings(raw);
  if (r.ok) throw new Error('expected errors');
  return r.errors;
};

describe('validateFolderSettings', () => {
  it('fills every default from a path and a deployment', () => {
    const r = validateFolderSettings({ path: '/data/in', deployment: 'sandbox-invoices' });
    expect(r).toEqual({
      ok: true,
      settings: {
        path: '/data/in',
        target: { type: 'deployment', id: 'sandbox-invoices' },
        recursive: true,
        include: [],
        ignore: [],
        polling: { enabled: false, intervalMs: 2000 },
        stabilityMs: 2000,
        rescanIntervalMs: 300_000,
        batching: { minQuietMs: 1000, quietMs: 10_000, maxFiles: 100, maxBytes: 1024 ** 3 },
        afterSuccess: { action: 'keep' },
        afterFailure: { errorDir: null },
        run: { tags: [], customKeys: {}, pdfPasswords: {}, postProcessPdf: false },
        outputDir: null,
        reprocessDuplicates: false,
        followLinks: false,
        share: null,
      },
    });
    expect(FOLDER_DEFAULTS.batching.quietMs).toBe(10_000);
  });

  it('a folder stored before minQuietMs existed gets the default wait, or its own quiet time when that is shorter', () => {
    const ok = (batching: unknown) => {
      const r = validateFolderSettings({ path: '/in', deployment: 'd', batching });
      if (!r.ok) throw new Error(r.errors.join('\n'));
      return r.settings.batching;
    };
    expect(ok({ quietMs: 10_000, maxFiles: 100, maxBytes: 1024 ** 3 })).toEqual({ minQuietMs: 1000, quietMs: 10_000, maxFiles: 100, maxBytes: 1024 ** 3 });
    expect(ok({ quietMs: 60_000 })).toMatchObject({ minQuietMs: 1000, quietMs: 60_000 });
    expect(ok({ quietMs: 300 })).toMatchObject({ minQuietMs: 300, quietMs: 300 });
    // A fixed wait, as before: both the same.
    expect(ok({ minQuietMs: 5000, quietMs: 5000 })).toMatchObject({ minQuietMs: 5000, quietMs: 5000 });
    expect(errorsOf({ path: '/in', deployment: 'd', batching: { minQuietMs: 4000, quietMs: 3000 } })).toEqual(['batching.minQuietMs must not be longer than batching.quietMs (4000 > 3000)']);
  });

  it('accepts a full setting and its own output (round trip)', () => {
    const full = {
      path: 'C:\\Scans\\In',
      app: 'app-invoice-extractor',
      appVersion: '1.1.0',
      recursive: false,
      include: ['*.pdf'],
      ignore: ['drafts'],
      polling: { enabled: true, intervalMs: 5000 },
      stabilityMs: 500,
      rescanIntervalMs: 60_000,
      batching: { quietMs: 2000, maxFiles: 10, maxBytes: 50_000_000 },
      afterSuccess: { action: 'archive', archiveDir: 'C:\\Scans\\Done' },
      afterFailure: { errorDir: '\\\\server\\share\\errors' },
      run: { tags: ['hot'], customKeys: { currency: 'EUR', min_confidence: 0.8 }, pdfPasswords: { 'Invoice 7': 'pw' }, postProcessPdf: true },
      outputDir: '/out',
      reprocessDuplicates: true,
    };
    const r = validateFolderSettings(full);
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(r.settings.target).toEqual({ type: 'app', id: 'app-invoice-extractor', version: '1.1.0' });
    expect(r.settings.afterSuccess).toEqual({ action: 'archive', archiveDir: 'C:\\Scans\\Done' });
    expect(validateFolderSettings(r.settings)).toEqual(r);
  });

  it.each([
    [null, /must be an object, got null/],
    [{ deployment: 'd' }, /path must be a non-empty string/],
    [{ path: 'relative/in', deployment: 'd' }, /path must be an absolute path/],
    [{ path: '/in' }, /a deployment or an app is required/],
    [{ path: '/in', deployment: 'd', app: 'a' }, /set only one of "deployment", "app"/],
    [{ path: '/in', target: { type: 'flow', id: 'x' } }, /target.type must be "deployment" or "app"/],
    [{ path: '/in', deployment: 'd', recursive: 'yes' }, /recursive must be true or false, got "yes"/],
    [{ path: '/in', deployment: 'd', followLinks: 'yes' }, /followLinks must be true or false, got "yes"/],
    [{ path: '/in', deployment: 'd', stabilityMs: -1 }, /stabilityMs must be between 0 and/],
    [{ path: '/in', deployment: 'd', polling: { enabled: true, intervalMs: 1.5 } }, /polling.intervalMs must be a whole number/],
    [{ path: '/in', deployment: 'd', batching: { maxFiles: 0 } }, /batching.maxFiles must be between 1 and/],
    [{ path: '/in', deployment: 'd', batching: { quietMS: 5 } }, /unknown setting "batching.quietMS"/],
    [{ path: '/in', deployment: 'd', recursiv: true }, /unknown setting "recursiv"/],
    [{ path: '/in', deployment: 'd', include: ['[abc'] }, /include\[0\]: bad pattern "\[abc"/],
    [{ path: '/in', deployment: 'd', ignore: '*.log' }, /ignore must be a list of patterns/],
    [{ path: '/in', deployment: 'd', afterSuccess: { action: 'archive' } }, /archiveDir is required when afterSuccess.action is "archive"/],
    [{ path: '/in', deployment: 'd', afterSuccess: { action: 'move' } }, /afterSuccess.action must be "keep", "archive" or "delete"/],
    [{ path: '/in', deployment: 'd', afterSuccess: { action: 'archive', archiveDir: '/in/done' } }, /archiveDir is inside the watched folder/],
    [{ path: '/in', deployment: 'd', afterFailure: { errorDir: '/' } }, /errorDir must not be the watched folder or contain it/],
    [{ path: '/in', deployment: 'd', run: { tags: ['ok', 3] } }, /run.tags must be a list of non-empty strings/],
    [{ path: '/in', deployment: 'd', run: { pdfPasswords: { t: 1 } } }, /run.pdfPasswords\["t"\] must be a string/],
    [{ path: '/in', deployment: 'd', appVersion: '1' }, /appVersion is only allowed with "app"/],
  ])('%j is rejected: %s', (raw, message) => {
    expect(errorsOf(raw).join('\n')).toMatch(message);
  });

  it('reports every problem at once', () => {
    expect(errorsOf({ path: 'x', stabilityMs: 'slow', batching: { maxBytes: 0 } })).toHaveLength(4);
  });

  it('an archive in a dot-folder inside the watched folder, or under a non-recursive folder, is fine', () => {
    expect(validateFolderSettings({ path: '/in', deployment: 'd', afterSuccess: { action: 'archive', archiveDir: '/in/.done' } }).ok).toBe(true);
    expect(validateFolderSettings({ path: '/in', deployment: 'd', recursive: false, outputDir: '/in/results' }).ok).toBe(true);
    expect(validateFolderSettings({ path: '/in', deployment: 'd', outputDir: '/inbox' }).ok).toBe(true);
  });
});
