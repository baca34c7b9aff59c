// The app store (renderer/src/lib/state/app.svelte.ts) on the real engine side: who is signed in and
// the connection follow `app`/`connection` events and the answers of sign-in, sign-out and "Try the
// sandbox"; status counts follow `status` events while a real file goes through; pause/resume; the
// engine's notices; and the notice list's own rules (repeats, at most three, auto-dismiss).
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { bridge } from '../../../../renderer/src/lib/bridge.js';
import { errorCode } from '../../../../shared/ui/errors.js';
import { app } from '../../../../renderer/src/lib/state/app.svelte.js';
import type { ConnectionState } from '../../../../shared/ui/views.js';
import { waitUntil } from '../../../helpers/wait.js';
import { listeners, storeEnv, writeInvoice, type StoreEnv } from './store-env.js';

let env: StoreEnv;
let stop: (() => void) | undefined;
beforeAll(async () => {
  env = await storeEnv();
});
afterAll(async () => {
  stop?.();
  await env?.close();
});

describe('app store', { timeout: 60_000 }, () => {
  it('loads what the app knows before anyone signs in; a second start subscribes nothing more', async () => {
    const before = listeners(env, 'connection');
    stop = app.start();
    app.start()();
    expect(listeners(env, 'connection')).toBe(before + 1);
    await waitUntil(() => app.info !== null && app.status !== null, 'the first load');
    expect(app.info).toMatchObject({ account: null, host: 'headless', version: 'test', dataHome: env.home });
    expect(app.connection).toEqual({ kind: 'none' });
    expect(app.signedIn).toBe(false);
    expect(app.paused).toBe(false);
    expect(app.loadError).toBeNull();
    expect(app.status?.counts.done).toBe(0);
  });

  it("pausing without a session shows the engine's one-line reason as an error notice", async () => {
    await app.togglePause();
    // Its topic comes from the error's code, not its wording: it goes once signed in (next test).
    expect(app.notices.at(-1)).toMatchObject({ level: 'error', msg: 'sign in (or try the sandbox) first: pausing needs the service', topic: 'signin' });
    expect(app.pausing).toBe(false);
    // Words alone make no topic: a notice that merely starts "Sign in" stays until dismissed.
    app.notify('error', 'Sign in went wrong elsewhere');
    expect(app.notices.at(-1)).toMatchObject({ msg: 'Sign in went wrong elsewhere', topic: null });
    // A prefixed error with the code is still about signing in.
    const err = await bridge.call('folders.retryFailed', { id: 1 }).catch((e: unknown) => e);
    expect(errorCode(err)).toBe(null); // no such folder: not about the session
    const needs = await bridge.call('engine.pause', {}).catch((e: unknown) => e);
    expect(errorCode(needs)).toBe('sign-in-needed');
    app.notifyError(needs, 'inv-1.pdf: ', 'files:1');
    expect(app.notices.at(-1)).toMatchObject({ msg: 'inv-1.pdf: sign in (or try the sandbox) first: pausing needs the service', topic: 'signin' });
  });

  it('Try the sandbox: the store goes none -> connecting -> online and says it is signed in', async () => {
    // Read right after the store's own listener (it subscribed first): what the store held at each event.
    const seen: ConnectionState['kind'][] = [];
    const off = bridge.on('connection', () => seen.push(app.connection.kind));
    try {
      const first = app.trySandbox();
      expect(app.sandboxStarting).toBe(true);
      expect(await app.trySandbox()).toBe(false); // a second click while it starts does nothing
      expect(await first).toBe(true);
    } finally {
      off();
    }
    expect(env.count('connection.trySandbox')).toBe(1);
    expect(seen).toEqual(['connecting', 'online']);
    const url = env.sandboxes[0]?.url;
    expect(app.connection).toEqual({ kind: 'online', url });
    expect(app.signedIn).toBe(true);
    expect(app.sandboxStarting).toBe(false);
    expect(app.info?.account).toMatchObject({ url, tokenSource: 'sandbox', signedInAs: `the built-in sandbox (${new URL(url as string).host})` });
    expect(app.info?.knownTargets).toContainEqual({ type: 'deployment', id: 'sandbox-invoices' });
    expect(app.notices.at(-1)?.msg).toMatch(/^Signed in to the built-in sandbox\./);
    // The "sign in first" errors of before are resolved: they went by themselves; the history keeps
    // them. The one whose words did not make it about signing in stays.
    expect(app.notices.filter((n) => /sign in \(or try the sandbox\) first/.test(n.msg))).toEqual([]);
    expect(app.history.filter((n) => /sign in \(or try the sandbox\) first/.test(n.msg) && n.topic === 'signin')).toHaveLength(2);
    expect(app.notices.some((n) => n.msg === 'Sign in went wrong elsewhere')).toBe(true);
  });

  it('pause and resume: the answer is the new status; a click while one is on its way is ignored', async () => {
    const pauses = env.count('engine.pause');
    const pausing = app.togglePause();
    expect(app.pausing).toBe(true);
    await app.togglePause();
    await pausing;
    expect(env.count('engine.pause')).toBe(pauses + 1);
    expect(app.paused).toBe(true);
    expect(app.status?.paused).toBe(true);
    await app.togglePause();
    expect(env.count('engine.resume')).toBe(1);
    expect(app.paused).toBe(false);
  });

  it("a file through the sandbox: counts arrive by `status` events, the run's end by a `notice`", async () => {
    const loads = env.count('status.get');
    const inbox = await env.dir('dropped-by-hand');
    await bridge.call('upload.paths', { paths: [await writeInvoice(inbox, 1)], target: { type: 'deployment', id: 'sandbox-invoices' } });
    await waitUntil(() => app.status?.counts.done === 1, 'the store counts the file done');
    await waitUntil(() => app.notices.some((n) => /finished/.test(n.msg)), 'the run notice');
    expect(env.count('status.get')).toBe(loads);
    expect(app.status?.activeRuns).toBe(0);
    expect(app.notices.find((n) => /finished/.test(n.msg))).toMatchObject({ level: 'info', msg: expect.stringMatching(/^Run of [A-Z][a-z]{2} \d+, \d+:\d\d\s?[AP]M on sandbox-invoices finished: 1 file done$/) });
  });

  it('sign out and sign in as the Connection screen does (callInfo): a refused token changes nothing; the token stays out of the store', async () => {
    const url = env.sandboxes[0]?.url as string;
    await app.callInfo(() => bridge.call('connection.signOut', {}));
    expect(app.connection).toEqual({ kind: 'none' });
    expect(app.signedIn).toBe(false);
    await expect(app.callInfo(() => bridge.call('connection.signIn', { url, token: 'wrong-token', sessionOnly: true }))).rejects.toThrow(/did not accept the sign-in/);
    expect(app.connection).toEqual({ kind: 'none' });
    expect(app.signedIn).toBe(false);

    // The built-in sandbox takes only the token made for it (issue 26), here typed in as a person would.
    const token = env.sandboxes[0]?.token as string;
    await app.callInfo(() => bridge.call('connection.signIn', { url, token, sessionOnly: true }));
    expect(app.connection).toEqual({ kind: 'online', url });
    expect(app.info?.account).toMatchObject({ url, context: null, namespace: null, tokenSource: 'memory', signedInAs: new URL(url).host });
    expect(JSON.stringify([app.info, app.connection, app.status, app.notices])).not.toContain(token);
  });

  it('an answer made before a newer `connection` event does not undo it (service gone while the call ran)', async () => {
    const info = await app.callInfo(async () => {
      const answer = await bridge.call('app.info', {});
      for (const sb of env.sandboxes) await sb.close();
      await waitUntil(() => app.connection.kind === 'offline', 'the offline event reaches the store');
      return answer;
    });
    expect(info.connection.kind).toBe('online');
    expect(app.info).toEqual(info);
    expect(app.connection).toMatchObject({ kind: 'offline', url: info.account?.url, reason: expect.any(String) });
  });

  it("a first load that fails keeps the engine's message; stopping unsubscribes", async () => {
    const before = listeners(env, 'status');
    stop?.();
    stop = undefined;
    expect(listeners(env, 'status')).toBe(before - 1);
    await env.core.stop();
    await app.load();
    expect(app.loadError).toMatch(/database connection is not open/);
  });
});

describe('notices', () => {
  it('a repeat within 5 s is shown once, at most three are kept, info and warn go by themselves, errors stay until dismissed', () => {
    // Fake clocks only for the notices' own timers, inside this synchronous block: no engine runs here.
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      app.notices = [];
      app.notify('info', 'same');
      app.notify('info', 'same');
      expect(app.notices.map((n) => n.msg)).toEqual(['same']);
      app.notify('error', 'same');
      app.notify('warn', 'careful');
      app.notify('info', 'fyi');
      expect(app.notices.map((n) => `${n.level} ${n.msg}`)).toEqual(['error same', 'warn careful', 'info fyi']);
      vi.advanceTimersByTime(6000);
      expect(app.notices.map((n) => n.level)).toEqual(['error', 'warn']);
      vi.advanceTimersByTime(4000);
      expect(app.notices.map((n) => n.level)).toEqual(['error']);
      vi.advanceTimersByTime(600_000);
      const [err] = app.notices;
      expect(err?.msg).toBe('same');
      app.dismiss(err?.id as number);
      expect(app.notices).toEqual([]);
      const t = Date.now();
      app.notify('warn', 'again', t);
      app.notify('warn', 'again', t + 5000);
      expect(app.notices).toHaveLength(2);
      expect(new Set(app.notices.map((n) => n.id)).size).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('over three, information goes before an error; the history keeps the last ones, gone or not', () => {
    app.notices = [];
    app.history = [];
    app.notify('error', 'a problem');
    for (const m of ['one', 'two', 'three']) app.notify('info', m);
    expect(app.notices.map((n) => n.msg)).toEqual(['a problem', 'two', 'three']);
    expect(app.history.map((n) => n.msg)).toEqual(['a problem', 'one', 'two', 'three']);
    for (let i = 0; i < 40; i++) app.notify('info', `n${i}`);
    expect(app.history).toHaveLength(30);
    expect(app.history.at(-1)?.msg).toBe('n39');
    expect(app.notices[0]?.msg).toBe('a problem');
  });

  it("an error about failed files goes once every file it names is done (the engine's file events)", async () => {
    const off = app.start();
    onTestFinished(off);
    app.notices = [];
    app.notify('error', 'Run r on d: 0 of 2 done, 2 failed.', Date.now(), { topic: 'files:901,902', detail: 'why' });
    app.notify('error', 'something else');
    const file = (id: number, state: 'done' | 'failed') => ({
      id, folderId: null, path: `/x/${id}.pdf`, name: `${id}.pdf`, size: 1, state, error: null, batchId: null, runId: null, updatedMs: 1, reviewWaiting: false, reviewSinceMs: null, batchClosesMs: null, handledBy: null,
    });
    env.core.events.emit('file', file(901, 'done'));
    await waitUntil(() => app.notices[0]?.topic === 'files:902', 'the first file is done');
    expect(app.notices).toHaveLength(2);
    env.core.events.emit('file', file(902, 'failed'));
    env.core.events.emit('file', file(902, 'done'));
    await waitUntil(() => app.notices.length === 1, 'the second file is done');
    expect(app.notices.map((n) => n.msg)).toEqual(['something else']);
  });
});
