/**
 * The bandwidth limit as the app sees it (issue 27, section 3): applied when the core starts (the
 * host's --bwlimit, else DOCSYNC_BWLIMIT, else the saved setting), told in StatusView while it
 * limits, and read or saved from the Connection screen. A saved change applies at once unless the
 * flag or the variable overrides it for this process, which the screen then says.
 */
import type { BandwidthSettingView, BandwidthStatus } from '../../../shared/ui/views.js';
import { applyBwLimit, bwOverride, readSavedBwLimit, saveBwLimit, type BwOverride } from '../config/bwlimit-setting.js';
import { engineBandwidth } from '../service/bandwidth.js';

export interface BandwidthHost {
  home: string;
  bwlimit?: string | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  notice(level: 'warn' | 'error', msg: string): void;
  statusChanged(): void;
}

/** Applies the limit and tells status of each change (a timetable's switch); returns the stop. */
export function startBandwidth(h: BandwidthHost): { override: BwOverride | null; stop: () => void } {
  let override: BwOverride | null = null;
  try {
    override = bwOverride(h.bwlimit, h.env ?? process.env);
  } catch (e) {
    h.notice('error', `${(e as Error).message}; the saved bandwidth setting is used instead`);
  }
  try {
    applyBwLimit(h.home, override);
  } catch (e) {
    engineBandwidth.set(null);
    h.notice('error', `${(e as Error).message}; transfers are not limited`);
  }
  const onChange = (): void => h.statusChanged();
  engineBandwidth.on('change', onChange);
  return {
    override,
    stop: () => {
      engineBandwidth.off('change', onChange);
      engineBandwidth.close();
    },
  };
}

export function bandwidthStatus(): BandwidthStatus | null {
  const n = engineBandwidth.now();
  return n ? { up: n.rates.up, down: n.rates.down, untilMs: n.untilMs, source: n.source } : null;
}

export function bandwidthSetting(home: string, override: BwOverride | null): BandwidthSettingView {
  let saved: string | null = null;
  try {
    saved = readSavedBwLimit(home);
  } catch {
    // An unreadable file shows as no setting; saving one replaces it.
  }
  return { saved, override };
}

/** Saves (or with "" removes) the setting and, unless overridden here, applies it now. */
export async function setBandwidth(home: string, override: BwOverride | null, spec: string): Promise<BandwidthSettingView> {
  await saveBwLimit(home, spec);
  if (!override) applyBwLimit(home, null);
  return bandwidthSetting(home, override);
}
