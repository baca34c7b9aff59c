// The hot-folder form (renderer/src/lib/folder-form.ts): every setting round-trips through the form's
// units, the engine's own validator accepts what the form sends, and the engine's one-line errors
// land on the right fields.
import { describe, expect, it } from 'vitest';
import { validateFolderSettings, type HotFolderSettings } from '../../../shared/hot-folder.js';
import { engineErrors, formOf, serviceSettingsChanged, settingsOf } from '../../../renderer/src/lib/folder-form.js';

const full: HotFolderSettings = {
  path: '/srv/scans',
  target: { type: 'app', id: 'invoices', version: '3' },
  recursive: false,
  include: ['*.pdf', '*.tif'],
  ignore: ['drafts/**'],
  polling: { enabled: true, intervalMs: 1500 },
  stabilityMs: 300,
  rescanIntervalMs: 90_000,
  batching: { minQuietMs: 500, quietMs: 2500, maxFiles: 40, maxBytes: 50 * 1024 * 1024 },
  afterSuccess: { action: 'archive', archiveDir: '/srv/archive' },
  afterFailure: { errorDir: '/srv/errors' },
  run: { tags: ['north', 'scanner-2'], customKeys: { team: 'north', n: 2 }, pdfPasswords: { Statement: 's3cret' }, postProcessPdf: true },
  outputDir: '/srv/out',
  reprocessDuplicates: true,
  followLinks: true,
  share: null,
};

describe('folder form', () => {
  it('round-trips every setting through the form (seconds, minutes, MB) and the engine validator', () => {
    const form = formOf(full);
    expect(form).toMatchObject({ pollSeconds: '1.5', stableSeconds: '0.3', rescanMinutes: '1.5', minQuietSeconds: '0.5', quietSeconds: '2.5', maxFiles: '40', maxMB: '50', tags: 'north, scanner-2' });
    const { settings, errors } = settingsOf(form);
    expect(errors).toEqual([]);
    const v = validateFolderSettings(settings);
    expect(v).toEqual({ ok: true, settings: full });
  });

  it('starts a new folder from the defaults, which the engine accepts once path and deployment are given', () => {
    const form = formOf(null, '/srv/in');
    form.target.id = 'sandbox-invoices';
    const { settings, errors } = settingsOf(form);
    expect(errors).toEqual([]);
    const v = validateFolderSettings(settings);
    expect(v.ok).toBe(true);
    if (v.ok) expect(v.settings).toMatchObject({ path: '/srv/in', stabilityMs: 2000, batching: { minQuietMs: 1000, quietMs: 10_000, maxFiles: 100, maxBytes: 1024 ** 3 }, afterSuccess: { action: 'keep' }, outputDir: null });
  });

  it('links to files outside the folder: off for a new folder and one stored before the setting existed; the box round-trips (issue 26)', () => {
    expect(formOf(null, '/srv/in').followLinks).toBe(false);
    const { followLinks: _, ...old } = full;
    const stored = validateFolderSettings(old);
    expect(stored.ok && formOf(stored.settings).followLinks).toBe(false);
    const form = formOf(full);
    expect(form.followLinks).toBe(true);
    form.followLinks = false;
    const v = validateFolderSettings(settingsOf(form).settings);
    expect(v.ok && v.settings.followLinks).toBe(false);
    expect(engineErrors('followLinks must be true or false, got "yes"')).toEqual([{ field: 'followLinks', msg: 'followLinks must be true or false, got "yes"' }]);
  });

  it('reports what only the form can see, in its own units', () => {
    const form = formOf(null, '');
    Object.assign(form, { quietSeconds: 'soon', stableSeconds: '4000', maxMB: '0', customKeys: '[1]', afterSuccess: 'archive', archiveDir: ' ' });
    form.passwords = [{ title: '', password: 'x' }, { title: 'A', password: '1' }, { title: 'A', password: '2' }];
    const fields = settingsOf(form).errors.map((e) => `${e.field}: ${e.msg}`);
    expect(fields).toEqual([
      'target: Give the deployment id the files go to',
      'customKeys: Custom keys must be a JSON object, like {"team": "north"}',
      'passwords: Each PDF password needs the document title it opens',
      'passwords: Two passwords for the title "A"',
      'stableSeconds: Stable after must be between 0 and 3600 seconds',
      'quietSeconds: Longest wait must be a number of seconds',
      'maxMB: Batch size must be at least 0 MB',
      'path: Give the folder to watch',
      'archiveDir: Give the folder processed files are moved to',
    ]);
  });

  it('a wait after the last file longer than the longest wait is said in the form\'s words', () => {
    const form = Object.assign(formOf(full), { minQuietSeconds: '12', quietSeconds: '10' });
    expect(settingsOf(form).errors).toEqual([{ field: 'minQuietSeconds', msg: 'Wait after the last file cannot be longer than the longest wait' }]);
    // The engine refuses it too, naming the setting (for the CLI and stored settings).
    expect(engineErrors((validateFolderSettings(settingsOf(form).settings) as { errors: string[] }).errors.join('; ')).map((e) => e.field)).toEqual(['minQuietSeconds']);
  });

  it('puts each problem of the engine line on its field', () => {
    const v = validateFolderSettings({ ...settingsOf(formOf(full)).settings, path: 'rel', stabilityMs: -1, include: ['['] });
    expect(v.ok).toBe(false);
    const line = v.ok ? '' : v.errors.join('; ');
    const errs = engineErrors(line);
    expect(errs.map((e) => e.field)).toEqual(expect.arrayContaining(['path', 'stableSeconds', 'include']));
    expect(errs.map((e) => e.msg).join('; ')).toBe(line);
    // A problem with its own "; " stays whole.
    const inside = validateFolderSettings({ path: '/srv/scans', deployment: 'd', outputDir: '/srv/scans/out' });
    const msg = inside.ok ? '' : inside.errors.join('; ');
    expect(engineErrors(msg)).toEqual([{ field: 'outputDir', msg }]);
    expect(engineErrors('unknown setting "colour"; a deployment or an app is required (set "deployment" or "app")').map((e) => e.field)).toEqual(['form', 'target']);
  });

  it('a folder that does not exist, or is already watched, is said on the path field', () => {
    expect(engineErrors('/srv/no such/scans is not a folder', '/srv/no such/scans')).toEqual([{ field: 'path', msg: '/srv/no such/scans is not a folder' }]);
    expect(engineErrors('/srv/scans is already a hot folder', '/srv/scans')).toEqual([{ field: 'path', msg: '/srv/scans is already a hot folder' }]);
    // Another folder named in a message (the archive folder) is not the path's problem.
    expect(engineErrors('/srv/scans is not a folder', '/srv/scans/in').map((e) => e.field)).toEqual(['form']);
  });

  it('only a change of what the service is given (target, run options) may fix files that failed there', () => {
    const same = settingsOf(formOf(full)).settings;
    expect(serviceSettingsChanged(full, same)).toBe(false);
    expect(serviceSettingsChanged(full, { ...same, stabilityMs: 9000, include: ['*.tif'] })).toBe(false);
    expect(serviceSettingsChanged(full, { ...same, target: { type: 'deployment', id: 'other' } })).toBe(true);
    const run = same.run as Record<string, unknown>;
    expect(serviceSettingsChanged(full, { ...same, run: { ...run, pdfPasswords: { Locked: 'pw' } } })).toBe(true);
    // The same run options built in another key order are no change.
    expect(serviceSettingsChanged(full, { ...same, run: Object.fromEntries(Object.entries(run).reverse()) })).toBe(false);
  });

  describe('sharing with other DocSync agents', () => {
    const shared: HotFolderSettings = { ...full, share: { name: 'north-scans', coordinationFolder: 'svc-drive/shared/docsync', leaseMs: 45_000, heartbeatMs: 1500 } };

    it('round-trips a share through the form (seconds) and the engine validator', () => {
      const form = formOf(shared);
      expect(form).toMatchObject({ shared: true, shareName: 'north-scans', coordinationFolder: 'svc-drive/shared/docsync', leaseSeconds: '45', heartbeatSeconds: '1.5' });
      const { settings, errors } = settingsOf(form);
      expect(errors).toEqual([]);
      expect(validateFolderSettings(settings)).toEqual({ ok: true, settings: shared });
    });

    it('a folder not shared offers the defaults, and sends no share until it is turned on', () => {
      const form = formOf(full);
      expect(form).toMatchObject({ shared: false, shareName: '', coordinationFolder: '', leaseSeconds: '60', heartbeatSeconds: '5' });
      expect(settingsOf(form).settings.share).toBeNull();
      // Turned on with only a name: the default coordination folder (empty), lease and heartbeat.
      Object.assign(form, { shared: true, shareName: 'north' });
      const v = validateFolderSettings(settingsOf(form).settings);
      expect(v.ok && v.settings.share).toEqual({ name: 'north', coordinationFolder: '', leaseMs: 60_000, heartbeatMs: 5000 });
      // Turned off again: the typed values stay in the form, the folder is not shared.
      form.shared = false;
      expect(settingsOf(form).settings.share).toBeNull();
      expect(form.shareName).toBe('north');
    });

    it('a share turned off in the form is no longer shared after the save', () => {
      const form = Object.assign(formOf(shared), { shared: false });
      const v = validateFolderSettings(settingsOf(form).settings);
      expect(v.ok && v.settings.share).toBeNull();
    });

    it('reports what only the form sees on the share\'s fields, in its words', () => {
      const form = Object.assign(formOf(shared), { shareName: ' ', leaseSeconds: 'a minute', heartbeatSeconds: '0.1' });
      expect(settingsOf(form).errors.map((e) => `${e.field}: ${e.msg}`)).toEqual([
        'shareName: Give the share a name, the same on every agent that shares this folder',
        'leaseSeconds: Take over after must be a number of seconds',
        'heartbeatSeconds: Sign of life every must be between 0.2 and 3600 seconds',
      ]);
      const names = Object.assign(formOf(shared), { shareName: 'north scans', leaseSeconds: '4', heartbeatSeconds: '3' });
      expect(settingsOf(names).errors.map((e) => `${e.field}: ${e.msg}`)).toEqual([
        'shareName: The share name may hold only letters, digits, “.”, “_” and “-” (up to 100)',
        'heartbeatSeconds: A sign of life must come at least twice within the wait before files are taken over',
      ]);
      // A folder that is not shared is not held back by its unused share fields.
      expect(settingsOf(Object.assign(names, { shared: false })).errors).toEqual([]);
    });

    it('puts the engine\'s share problems on the share\'s fields', () => {
      const sent = settingsOf(formOf(shared)).settings;
      const v = validateFolderSettings({ ...sent, share: { name: 'a b', coordinationFolder: '/local/dir', leaseMs: 500, heartbeatMs: 100 } });
      const line = v.ok ? '' : v.errors.join('; ');
      expect(engineErrors(line).map((e) => e.field)).toEqual(['shareName', 'coordinationFolder', 'leaseSeconds', 'heartbeatSeconds']);
      const half = validateFolderSettings({ ...sent, share: { name: 'n', leaseMs: 4000, heartbeatMs: 3000 } });
      expect(engineErrors(half.ok ? '' : half.errors.join('; '))).toEqual([{ field: 'heartbeatSeconds', msg: 'share.heartbeatMs must be at most half of share.leaseMs (3000 > 4000 / 2)' }]);
      expect(engineErrors('unknown setting "share.colour" (known: name, coordinationFolder, leaseMs, heartbeatMs)').map((e) => e.field)).toEqual(['shareName']);
    });
  });
});
