/**
 * What the whole window shows: who is signed in, the connection, the queue's counts, pause state, and
 * the notices a person should see. One instance for the app, fed by `app`, `connection`, `status`
 * and `notice` events.
 */
import type { AppInfo, ConnectionState, Notice, StatusView } from '../../../../shared/ui/views.js';
import { errorCode } from '../../../../shared/ui/errors.js';
import { bridge } from '../bridge.js';

export interface ShownNotice extends Notice {
  id: number;
}

/** Notices of these levels go away by themselves; errors stay until dismissed or resolved (see `resolve`). */
const AUTO_DISMISS_MS: Record<Notice['level'], number | null> = { info: 6000, warn: 10_000, error: null };
const MAX_NOTICES = 3;
/** Notices kept for the history, newest last. */
const MAX_HISTORY = 30;
/** The same message again within this long is not shown twice. */
const REPEAT_MS = 5000;

/** The files a notice's topic names (`files:1,2`), or null when it is about something else. */
export function topicFiles(topic: string | null | undefined): number[] | null {
  const m = /^files?:([\d,]+)$/.exec(topic ?? '');
  return m ? (m[1] as string).split(',').filter(Boolean).map(Number) : null;
}

class AppState {
  info = $state.raw<AppInfo | null>(null);
  connection = $state.raw<ConnectionState>({ kind: 'none' });
  status = $state.raw<StatusView | null>(null);
  notices = $state.raw<ShownNotice[]>([]);
  /** The last notices, shown or gone, for a person who missed one. */
  history = $state.raw<ShownNotice[]>([]);
  /** Why the first load failed (the engine is unreachable), else null. */
  loadError = $state<string | null>(null);
  pausing = $state(false);
  sandboxStarting = $state(false);

  signedIn = $derived(this.info?.account != null);
  paused = $derived(this.status?.paused ?? false);

  private nextId = 1;
  private started = false;
  /** Counts connection news from events: a call's answer must not undo news that came in while it ran. */
  private connSeq = 0;

  /** Subscribes to the engine's events and loads the first state. Returns the unsubscriber. */
  start(): () => void {
    if (this.started) return () => {};
    this.started = true;
    const offs = [
      bridge.on('app', (info) => {
        this.connSeq++;
        this.info = info;
        this.connection = info.connection;
        this.resolveConnection();
      }),
      bridge.on('connection', (c) => {
        this.connSeq++;
        this.connection = c;
        this.resolveConnection();
      }),
      bridge.on('status', (s) => (this.status = s)),
      bridge.on('notice', (n) => this.notify(n.level, n.msg, n.atMs, n)),
      bridge.on('file', (f) => {
        if (f.state === 'done' || f.state === 'skipped') this.resolveFile(f.id);
      }),
    ];
    void this.load();
    return () => {
      for (const off of offs) off();
      this.started = false;
    };
  }

  async load(): Promise<void> {
    try {
      const [, status] = await Promise.all([this.callInfo(() => bridge.call('app.info', {})), bridge.call('status.get', {})]);
      this.status = status;
      this.loadError = null;
    } catch (e) {
      this.loadError = message(e);
    }
  }

  /**
   * Runs a request answering AppInfo (app.info, sign-in, sign-out, sandbox) and takes its answer. Its
   * connection state is a snapshot from when it was made: a `connection` event that arrived meanwhile is newer.
   */
  async callInfo(request: () => Promise<AppInfo>): Promise<AppInfo> {
    const seq = this.connSeq;
    const info = await request();
    this.info = info;
    if (this.connSeq === seq) this.connection = info.connection;
    this.resolveConnection();
    return info;
  }

  async togglePause(): Promise<void> {
    if (this.pausing) return;
    this.pausing = true;
    try {
      this.status = await bridge.call(this.paused ? 'engine.resume' : 'engine.pause', {});
    } catch (e) {
      this.notifyError(e);
    } finally {
      this.pausing = false;
    }
  }

  /** Starts the built-in sandbox and signs in to it. */
  async trySandbox(): Promise<boolean> {
    if (this.sandboxStarting) return false;
    this.sandboxStarting = true;
    try {
      await this.callInfo(() => bridge.call('connection.trySandbox', {}));
      this.notify('info', 'Signed in to the built-in sandbox. Add a hot folder or drop files anywhere to try it.');
      return true;
    } catch (e) {
      this.notify('error', `The sandbox did not start: ${message(e)}`);
      return false;
    } finally {
      this.sandboxStarting = false;
    }
  }

  /**
   * Shows a notice. `topic` says what it is about, so an error goes by itself once that is resolved:
   * `signin` once signed in, `service` once the service is back, `files:1,2` once those files are
   * done. Over MAX_NOTICES, information goes before errors.
   */
  notify(level: Notice['level'], msg: string, atMs = Date.now(), more: Pick<Notice, 'detail' | 'topic'> = {}): void {
    if (this.notices.some((o) => o.msg === msg && o.level === level && Math.abs(atMs - o.atMs) < REPEAT_MS)) return;
    const n: ShownNotice = { level, msg, atMs, id: this.nextId++, detail: more.detail ?? null, topic: more.topic ?? null };
    let shown = [...this.notices, n];
    while (shown.length > MAX_NOTICES) {
      const drop = shown.findIndex((o) => o.level !== 'error');
      shown = shown.filter((_, i) => i !== (drop < 0 ? 0 : drop));
    }
    this.notices = shown;
    this.history = [...this.history, n].slice(-MAX_HISTORY);
    const after = AUTO_DISMISS_MS[level];
    if (after !== null) setTimeout(() => this.dismiss(n.id), after);
  }

  /**
   * Shows a failed request as an error notice, `prefix` before the engine's words. Its topic comes
   * from the error's code (a request that needs a session goes once signed in), else `topic`.
   */
  notifyError(e: unknown, prefix = '', topic: string | null = null): void {
    this.notify('error', `${prefix}${message(e)}`, Date.now(), { topic: errorTopic(e) ?? topic });
  }

  dismiss(id: number): void {
    this.notices = this.notices.filter((n) => n.id !== id);
  }

  /** Takes away the notices whose problem is gone. */
  private resolve(gone: (n: ShownNotice) => boolean): void {
    if (this.notices.some(gone)) this.notices = this.notices.filter((n) => !gone(n));
  }

  private resolveConnection(): void {
    if (this.info?.account) this.resolve((n) => n.topic === 'signin');
    if (this.connection.kind === 'online') this.resolve((n) => n.topic === 'service');
  }

  /** A file is done: a notice about failed files goes once every file it names is done. */
  private resolveFile(id: number): void {
    const left = new Map<number, string>();
    for (const n of this.notices) {
      const files = topicFiles(n.topic);
      if (!files?.includes(id)) continue;
      const rest = files.filter((x) => x !== id);
      left.set(n.id, rest.length ? `files:${rest.join(',')}` : '');
    }
    if (left.size === 0) return;
    this.notices = this.notices.flatMap((n) => {
      const topic = left.get(n.id);
      if (topic === undefined) return [n];
      return topic === '' ? [] : [{ ...n, topic }];
    });
  }
}

/** The notice topic an error's code gives (see AppState.notify), else null. */
export function errorTopic(e: unknown): string | null {
  return errorCode(e) === 'sign-in-needed' ? 'signin' : null;
}

/** An error's one-line message (the engine's own words). */
export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export const app = new AppState();
