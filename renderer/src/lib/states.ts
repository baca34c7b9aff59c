/** How file states read and group in the UI. Pure. */
import type { FileState } from '../../../shared/file-states.js';

export const STATE_LABEL: Record<FileState, string> = {
  discovered: 'Discovered',
  stable: 'Stable',
  queued: 'Queued',
  uploading: 'Uploading',
  uploaded: 'Uploaded',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
  skipped: 'Skipped',
  elsewhere: 'Another agent',
};

/** Colour family of a state's badge. */
export type Tone = 'neutral' | 'active' | 'ok' | 'bad' | 'quiet';

export const STATE_TONE: Record<FileState, Tone> = {
  discovered: 'neutral',
  stable: 'neutral',
  queued: 'neutral',
  uploading: 'active',
  uploaded: 'active',
  running: 'active',
  done: 'ok',
  failed: 'bad',
  skipped: 'quiet',
  elsewhere: 'quiet',
};

/** States in which the engine accepts a cancel (the file has not started uploading). */
export const CANCELLABLE: readonly FileState[] = ['discovered', 'stable', 'queued'];
