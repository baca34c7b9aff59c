/**
 * The bandwidth setting through AppCore.call, as the app's Connection screen and header use it
 * (issue 27, section 3): saved in the data home for every host, checked in words, applied at once,
 * in StatusView while it limits, overridden by DOCSYNC_BWLIMIT or --bwlimit for the process only,
 * and read again by a host started later on the same data home.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { engineBandwidth } from '../../../electron/engine/service/bandwidth.js';
import { BWLIMIT_FILE } from '../../../electron/engine/config/bwlimit-setting.js';
import type { Notice, StatusView } from '../../../shared/ui/views.js';
import { coreEnv, type CoreEnv } from '../../helpers/app-core.js';

const M = 1024 * 1024;
let env: CoreEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
  engineBandwidth.set(null);
});

describe('the bandwidth setting', () => {
  it('is saved in the data home, applied at once, told in status, and removed with an empty text', async () => {
    env = await coreEnv();
    expect(await env.call('bandwidth.get', {})).toEqual({ saved: null, override: null });
    expect((await env.call('status.get', {})).bandwidth).toBeNull();

    const statuses: StatusView[] = [];
    env.core.events.on('status', (s) => statuses.push(s));
    expect(await env.call('bandwidth.set', { spec: ' 2M:10M ' })).toEqual({ saved: '2M:10M', override: null });
    expect(JSON.parse(readFileSync(join(env.home, BWLIMIT_FILE), 'utf8'))).toEqual({ bwlimit: '2M:10M' });
    expect([engineBandwidth.up.rate, engineBandwidth.down.rate]).toEqual([2 * M, 10 * M]);
    expect((await env.call('status.get', {})).bandwidth).toEqual({ up: 2 * M, down: 10 * M, untilMs: null, source: 'saved' });
    expect(statuses.at(-1)?.bandwidth).toMatchObject({ up: 2 * M });

    expect(await env.call('bandwidth.set', { spec: '' })).toEqual({ saved: null, override: null });
    expect(existsSync(join(env.home, BWLIMIT_FILE))).toBe(false);
    expect(engineBandwidth.up.rate).toBeNull();
    expect((await env.call('status.get', {})).bandwidth).toBeNull();
  });

  it('refuses a limit it cannot read, in words, and keeps the saved one', async () => {
    env = await coreEnv();
    await env.call('bandwidth.set', { spec: '1M' });
    await expect(env.call('bandwidth.set', { spec: 'Mon-Fri,25:00,2M' })).rejects.toThrow('"25:00" in "Mon-Fri,25:00,2M" is not a time: write HH:MM, from 00:00 to 23:59');
    expect(await env.call('bandwidth.get', {})).toEqual({ saved: '1M', override: null });
    expect(engineBandwidth.up.rate).toBe(M);
  });

  it('a saved setting holds for the next host on the same data home; DOCSYNC_BWLIMIT overrides it for its process only', async () => {
    env = await coreEnv();
    await env.call('bandwidth.set', { spec: '3M' });
    const home = env.home;
    await env.core.stop();
    engineBandwidth.set(null);

    const again = await coreEnv({ hooks: { home } });
    try {
      expect(engineBandwidth.up.rate).toBe(3 * M);
    } finally {
      await again.close();
    }

    const withEnv = await coreEnv({ hooks: { home, env: { DOCSYNC_BWLIMIT: '512K' } } });
    try {
      expect(await withEnv.call('bandwidth.get', {})).toEqual({ saved: '3M', override: { source: 'env', spec: '512K' } });
      expect((await withEnv.call('status.get', {})).bandwidth).toMatchObject({ up: 512 * 1024, source: 'env' });
      // Saving changes the file, not the limit this process was started with.
      await withEnv.call('bandwidth.set', { spec: '4M' });
      expect(engineBandwidth.up.rate).toBe(512 * 1024);
    } finally {
      await withEnv.close();
    }

    const withFlag = await coreEnv({ hooks: { home, env: { DOCSYNC_BWLIMIT: '512K' }, bwlimit: 'Mon-Fri,08:00,2M 18:00,off' } });
    try {
      expect((await withFlag.call('bandwidth.get', {})).override).toEqual({ source: 'flag', spec: 'Mon-Fri,08:00,2M 18:00,off' });
    } finally {
      await withFlag.close();
    }
  });

  it('a DOCSYNC_BWLIMIT it cannot read is said in a notice, and the saved setting holds', async () => {
    env = await coreEnv();
    await env.call('bandwidth.set', { spec: '1M' });
    const home = env.home;
    await env.core.stop();
    const notices: Notice[] = [];
    const bad = await coreEnv({ hooks: { home, env: { DOCSYNC_BWLIMIT: '16Mbit' } } });
    bad.core.events.on('notice', (n) => notices.push(n));
    try {
      await new Promise((r) => setTimeout(r, 10));
      expect(notices.map((n) => n.msg)).toContainEqual(expect.stringMatching(/^DOCSYNC_BWLIMIT: "16Mbit" in "16Mbit" looks like bits per second: .*; the saved bandwidth setting is used instead$/));
      expect(engineBandwidth.up.rate).toBe(M);
    } finally {
      await bad.close();
    }
  });
});
