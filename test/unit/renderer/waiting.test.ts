// Why a waiting file waits (renderer/src/lib/waiting.ts): a file never just sits at "Queued" without a word.
import { describe, expect, it } from 'vitest';
import { waitingText, type WaitContext } from '../../../renderer/src/lib/waiting.js';

const NOW = 1_000_000;
const online: WaitContext = { paused: false, connection: { kind: 'online', url: 'http://x' }, nowMs: NOW };
const file = { state: 'queued' as const, batchId: null, reviewWaiting: false, reviewSinceMs: null, batchClosesMs: null, updatedMs: NOW - 42_000 };

describe('waitingText', () => {
  it('counts down the open batch a file waits in', () => {
    expect(waitingText({ ...file, batchClosesMs: NOW + 7_200 }, online)).toBe('waiting for more files (8 s)');
    expect(waitingText({ ...file, batchClosesMs: NOW - 50 }, online)).toBe('waiting for more files (1 s)');
  });

  it('says why a queued file does not go up: paused, offline, signed out', () => {
    expect(waitingText(file, { ...online, paused: true })).toBe('paused: goes on when you resume');
    expect(waitingText(file, { ...online, connection: { kind: 'offline', url: 'http://x', reason: 'r', sinceMs: NOW - 125_000 } }))
      .toBe('offline: uploads when the service is back (for 2 min 05 s)');
    expect(waitingText({ ...file, state: 'uploading' }, { ...online, connection: { kind: 'refused', url: 'http://x', reason: 'r' } }))
      .toBe('not signed in: uploads once you sign in again');
  });

  it('says a batched file waits its turn, and for how long', () => {
    expect(waitingText({ ...file, batchId: 3 }, online)).toBe('waiting to upload (for 42 s)');
    expect(waitingText({ ...file, state: 'stable' }, online)).toBe('checking the file is complete');
  });

  it('names the agent that handles a file of a shared folder, paused or offline here', () => {
    expect(waitingText({ ...file, state: 'elsewhere', handledBy: 'scan-2' }, online)).toBe('With another agent: scan-2');
    expect(waitingText({ ...file, state: 'elsewhere', handledBy: 'scan-2' }, { ...online, paused: true })).toBe('With another agent: scan-2');
    // Its name not known yet (a row from before the first look at the claim).
    expect(waitingText({ ...file, state: 'elsewhere', handledBy: null }, online)).toBe('With another agent');
  });

  it('says a running file waits for review; moving and finished files need no words', () => {
    // Counted from when the run was first seen waiting for review, not from the run's start (updatedMs).
    expect(waitingText({ ...file, state: 'running', reviewWaiting: true, reviewSinceMs: NOW - 7_000 }, online)).toBe('waiting for review (for 7 s)');
    // A run whose review start is unknown (not yet polled since) falls back to the file's own time.
    expect(waitingText({ ...file, state: 'running', reviewWaiting: true }, online)).toBe('waiting for review (for 42 s)');
    expect(waitingText({ ...file, state: 'running' }, online)).toBeNull();
    expect(waitingText({ ...file, state: 'uploading' }, online)).toBeNull();
    expect(waitingText({ ...file, state: 'done' }, { ...online, paused: true })).toBeNull();
    expect(waitingText({ ...file, state: 'failed' }, online)).toBeNull();
  });
});
