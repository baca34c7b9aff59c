/**
 * The engine side of the UI contract, shared by the Electron shell and `docsync serve`: the local
 * store (always open, so results stay browsable offline), the connection (signed in, offline,
 * refused) and, while signed in, one engine with its client. Hosts add only a transport.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { zeroCounts } from '../../../shared/file-states.js';
import { checkArgs, isRequestChannel, type EventChannel, type Events, type Handlers, type RequestChannel } from '../../../shared/ui/contract.js';
import { codedError, errorCode } from '../../../shared/ui/errors.js';
import { offlineReason, runNamed, runOutcome, sentence, serviceProblem } from '../../../shared/ui/messages.js';
import { inWords } from '../pipeline/context.js';
import type { AccountView, AppInfo, ConnectionState, Notice, StatusView, Transfer } from '../../../shared/ui/views.js';
import { clientConfigOf, resolveConnection, type Connection } from '../config/connection.js';
import { KeychainUnavailableError, MemoryStore } from '../config/credentials.js';
import { tightenDataHome, tightenedNotice } from '../config/private-files.js';
import { Engine } from '../engine.js';
import { isServiceError, ServiceClient } from '../service/index.js';
import { probeClient } from '../service/probe.js';
import { openStore, STORE_FILE, type Store } from '../store/index.js';
import { stateCounter } from '../store/state-counts.js';
import { bandwidthStatus, startBandwidth } from './bandwidth.js';
import { watchFleets } from './fleet-watch.js';
import { createHandlers } from './handlers.js';
import type { HostHooks, SandboxHandle } from './host-hooks.js';
import { fileView, runView } from './views.js';
import { shown, shownLines } from '../../../shared/shown.js';

type EventMap = { [E in EventChannel]: [Events[E]] };
export type TokenSource = AccountView['tokenSource'];

interface Session {
  conn: Connection;
  tokenSource: TokenSource;
  client: ServiceClient;
  probe: ServiceClient;
  engine: Engine;
  timer?: NodeJS.Timeout;
  transfers: Map<number, Transfer>;
  progressTimer?: NodeJS.Timeout;
  /** Stops the look at shared folders' fleets (fleet-watch.ts). */
  stopFleetWatch?: () => void;
}

/** Probe periods: a quiet check while online, a quicker one while the service cannot be reached. */
const PROBE_ONLINE_MS = 20_000;
const PROBE_OFFLINE_MS = 5_000;

export class AppCore {
  readonly events = new EventEmitter<EventMap>();
  readonly handlers: Handlers;
  readonly memoryTokens = new MemoryStore();
  #store: Store | undefined;
  #session: Session | null = null;
  #sandbox: SandboxHandle | null = null;
  #state: ConnectionState = { kind: 'none' };
  #keychainProblem: string | null = null;
  #statusTimer: NodeJS.Timeout | undefined;
  /** A change came while status events were being held back. */
  #statusDirty = false;
  /** Files per state, kept from the store's event log instead of counted on every status. */
  #stateCounts: (() => StatusView['counts']) | undefined;
  /** Last status announced per run: a run's final status is reported more than once. */
  readonly #announced = new Map<number, string>();
  #stopped = false;
  /** Notices said before any host listened (at start): the first listener gets them. */
  #early: Notice[] | null = [];
  /** The bandwidth limit's flag or DOCSYNC_BWLIMIT, and the stop of its status events (bandwidth.ts). */
  bandwidth: ReturnType<typeof startBandwidth> | undefined;

  constructor(readonly hooks: HostHooks) {
    this.handlers = createHandlers(this);
    // Errors on an EventEmitter with no listener would throw; the UI does not need them.
    this.events.setMaxListeners(50);
    (this.events as EventEmitter).on('newListener', (event: string) => {
      if (event !== 'notice' || !this.#early) return;
      const early = this.#early;
      this.#early = null;
      // After the listener is added (newListener runs before).
      if (early.length) queueMicrotask(() => early.forEach((n) => this.events.emit('notice', n)));
    });
  }

  get store(): Store {
    if (!this.#store) throw new Error('DocSync is not started yet');
    return this.#store;
  }

  get engine(): Engine | null {
    return this.#session?.engine ?? null;
  }

  /** The signed-in token, for "test connection" without typing it again; never leaves this process. */
  tokenFor(url: string): string | undefined {
    return this.#session?.conn.url === url ? this.#session.conn.token : undefined;
  }

  get connection(): ConnectionState {
    return this.#state;
  }

  /**
   * Opens the store and, when a connection is configured (or given by the host), signs in and
   * starts the engine; with none, `sandboxWhenNone` signs in to the built-in sandbox. Never fails for an unreachable
   * service: that is the offline state.
   */
  async start(o: { connection?: Connection | null; sandboxWhenNone?: boolean } = {}): Promise<void> {
    const tightened = tightenDataHome(this.hooks.home);
    if (tightened) this.notice('warn', tightenedNotice(this.hooks.home, tightened));
    this.#store = openStore(join(this.hooks.home, STORE_FILE));
    this.#stateCounts = undefined;
    this.bandwidth = startBandwidth({ ...this.hooks, notice: (l, m) => this.notice(l, m), statusChanged: () => this.statusChanged() });
    // Known before anyone signs in, so the sign-in form offers a session-only token up front.
    this.#keychainProblem = await this.hooks.credentials.unavailable();
    let conn = o.connection ?? null;
    if (o.connection === undefined) {
      try {
        conn = await resolveConnection(this.hooks.home, this.hooks.credentials, this.hooks.env, this.hooks.resolveProxy ? { systemProxy: (u) => this.hooks.resolveProxy!(u) } : {});
      } catch (err) {
        if (err instanceof KeychainUnavailableError) this.#keychainProblem = err.message;
        this.notice('warn', err instanceof Error ? err.message : String(err));
      }
    }
    if (conn) await this.openSession(conn, conn.source);
    else if (o.sandboxWhenNone) {
      const sb = await this.sandbox();
      // The built-in sandbox is on this computer: never through a proxy.
      await this.openSession({ url: sb.url, token: sb.token, context: undefined, proxy: null, source: 'memory' }, 'sandbox');
    }
    this.emitApp();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#statusTimer);
    this.bandwidth?.stop();
    await this.closeSession();
    await this.#sandbox?.close();
    this.#sandbox = null;
    this.#store?.close();
  }

  /** Checks the channel and its argument, then runs the handler. Errors are one line, with their code (shared/ui/errors.ts). */
  async call(channel: string, raw: unknown): Promise<unknown> {
    if (!isRequestChannel(channel)) throw new Error(`unknown request "${channel.slice(0, 60)}"`);
    const args = checkArgs(channel, raw);
    try {
      return await (this.handlers[channel] as (a: unknown) => Promise<unknown>)(args);
    } catch (err) {
      throw codedError(oneLine(err), errorCode(err));
    }
  }

  // ---- connection --------------------------------------------------------------------------------

  info(): AppInfo {
    const s = this.#session;
    const targets = new Map<string, AppInfo['knownTargets'][number]>();
    if (this.#store) {
      for (const f of this.store.folders.list()) {
        if (f.deploymentId) targets.set(`d:${f.deploymentId}`, { type: 'deployment', id: f.deploymentId });
        if (f.appId) targets.set(`a:${f.appId}`, { type: 'app', id: f.appId });
      }
      for (const r of this.store.runs.listRuns(200)) {
        if (r.deploymentId) targets.set(`d:${r.deploymentId}`, { type: 'deployment', id: r.deploymentId });
        if (r.appId) targets.set(`a:${r.appId}`, { type: 'app', id: r.appId });
      }
    }
    if (s?.tokenSource === 'sandbox') for (const id of this.#sandbox?.deployments ?? []) targets.set(`d:${id}`, { type: 'deployment', id });
    return {
      version: this.hooks.version,
      host: this.hooks.host,
      platform: process.platform,
      dataHome: this.hooks.home,
      account: s ? { url: s.conn.url, context: s.conn.context ?? null, namespace: s.conn.namespace ?? null, tokenSource: s.tokenSource, signedInAs: signedInAs(s), ownCa: s.conn.ca !== undefined, ...proxyView(s.conn) } : null,
      connection: this.#state,
      keychainProblem: this.#keychainProblem,
      knownTargets: [...targets.values()],
    };
  }

  /**
   * Replaces the running session with one for `conn` (after the caller verified it). With
   * `settle`, the first probe is awaited, so what the caller returns to the UI is already
   * online/offline rather than a "connecting" that could arrive after the probe's own event.
   */
  async openSession(conn: Connection, tokenSource: TokenSource, o: { settle?: boolean } = {}): Promise<void> {
    await this.closeSession();
    const client = new ServiceClient(clientConfigOf(conn));
    const probe = probeClient(conn);
    // The built-in sandbox is one service whatever port it starts on; any other is its URL and context.
    const service = { url: conn.url, context: conn.context ?? null, builtIn: tokenSource === 'sandbox' };
    const engine = new Engine({ store: this.store, client, service, home: this.hooks.home, ...this.hooks.engine });
    const s: Session = { conn, tokenSource, client, probe, engine, transfers: new Map() };
    this.#session = s;
    this.wire(s);
    this.setState({ kind: 'connecting', url: conn.url });
    await engine.start();
    if (o.settle) await this.probe(s);
    else void this.probe(s);
  }

  async closeSession(): Promise<void> {
    const s = this.#session;
    if (!s) return;
    this.#session = null;
    clearTimeout(s.timer);
    clearTimeout(s.progressTimer);
    s.stopFleetWatch?.();
    await s.engine.stop();
    s.client.close();
    s.probe.close();
    this.setState({ kind: 'none' });
  }

  /** Starts the built-in sandbox once (or reuses it) and returns it. */
  async sandbox(): Promise<SandboxHandle> {
    this.#sandbox ??= await this.hooks.startSandbox();
    return this.#sandbox;
  }

  setKeychainProblem(msg: string | null): void {
    this.#keychainProblem = msg;
  }

  emitApp(): void {
    this.events.emit('app', this.info());
  }

  /**
   * Tells the UI something. `detail` keeps the technical words (the UI shows them behind the
   * message); `topic` names the problem, so the UI can take an error away once it is resolved.
   */
  notice(level: Notice['level'], msg: string, o: { detail?: string | null; topic?: string | null } = {}): void {
    // Names in notices are shown escaped (issue 26): a file name cannot make a notice look like two.
    const n: Notice = { level, msg: shown(msg), atMs: Date.now(), detail: o.detail ? shownLines(o.detail) : null, topic: o.topic ?? null };
    if (!this.#early || this.events.listenerCount('notice') > 0) this.events.emit('notice', n);
    else if (this.#early.length < 20) this.#early.push(n);
  }

  status(): StatusView {
    const e = this.engine;
    return {
      counts: this.#store ? (this.#stateCounts ??= stateCounter(this.store.db))() : zeroCounts(),
      transfers: this.#session ? [...this.#session.transfers.values()] : [],
      paused: e ? e.status().paused : false,
      activeRuns: this.#store ? this.store.runs.activeRuns().length : 0,
      reviewWaiting: this.#store ? this.store.browse.reviewWaiting() : 0,
      bandwidth: bandwidthStatus(),
    };
  }

  /**
   * Status events for changes: the first change of a quiet spell goes out at once (the counts move
   * with the rows), later ones are coalesced into at most one event per 250 ms, the last of which
   * carries the final counts.
   */
  statusChanged(): void {
    if (this.#stopped) return;
    if (this.#statusTimer) {
      this.#statusDirty = true;
      return;
    }
    this.events.emit('status', this.status());
    this.#statusTimer = setTimeout(() => {
      this.#statusTimer = undefined;
      if (!this.#statusDirty) return;
      this.#statusDirty = false;
      this.statusChanged();
    }, 250);
  }

  private setState(next: ConnectionState): void {
    const same = JSON.stringify(next) === JSON.stringify(this.#state);
    this.#state = next;
    if (!same) this.events.emit('connection', next);
  }

  private wire(s: Session): void {
    const { engine } = s;
    const live = (): boolean => this.#session === s;
    engine.on('file', ({ file, from }) => {
      if (!live()) return;
      if (file.state !== 'uploading') s.transfers.delete(file.id);
      this.events.emit('file', fileView(this.store, file, engine.batchClosesAt(file)));
      if (file.state !== from) this.statusChanged();
    });
    engine.on('progress', (p) => {
      if (!live()) return;
      s.transfers.set(p.fileId, { fileId: p.fileId, sent: p.sent, total: p.total });
      // Progress arrives per chunk; the UI needs a few updates a second.
      s.progressTimer ??= setTimeout(() => {
        s.progressTimer = undefined;
        if (live()) this.events.emit('progress', [...s.transfers.values()]);
      }, 200);
    });
    engine.on('run', ({ run }) => {
      if (!live()) return;
      const view = runView(this.store, run);
      this.events.emit('run', view);
      this.statusChanged();
      const target = run.deploymentId ?? run.appId ?? 'the service';
      if (this.#announced.get(run.id) === run.status) return;
      const files = run.batchId === null ? [] : this.store.files.list({ batchId: run.batchId });
      // A run is COMPLETE on the service before its files are: its outcome is told once they are.
      if ((run.status === 'COMPLETE' || run.status === 'FAILED') && files.some((f) => f.state === 'running' || f.state === 'uploaded')) return;
      this.#announced.set(run.id, run.status ?? '');
      // An error about failed files goes away once they are retried and done.
      const failed = files.filter((f) => f.state === 'failed').map((f) => f.id);
      const topic = failed.length ? `files:${failed.join(',')}` : null;
      const named = runNamed(run.createdMs);
      if (run.status === 'COMPLETE') {
        const outcome = runOutcome(view);
        if (view.failed > 0) this.notice('error', `${named} on ${target}: ${outcome}. Activity shows why; retry the failed files there.`, { topic });
        else this.notice('info', `${named} on ${target} finished: ${outcome}`);
      } else if (run.status === 'FAILED') {
        const what = view.files === 1 ? 'Its file is marked failed; retry it' : `Its ${view.files} files are marked failed; retry them`;
        this.notice('error', `${named} on ${target} failed${run.msg ? `: ${run.msg.split('\n')[0]}` : ''}. ${what} from Activity.`, { topic, detail: run.msg });
      }
    });
    const sendFolders = (): void => {
      if (live()) void this.handlers['folders.list']({}).then((list) => this.events.emit('folders', list));
    };
    engine.on('folders', sendFolders);
    // Other agents' heartbeats change a shared folder's fleet while no file moves.
    s.stopFleetWatch = watchFleets({
      sharedFolders: () => this.store.folders.list().filter((f) => f.settings.share != null).map((f) => f.id),
      fleet: (id) => engine.fleet(id),
    }, sendFolders);
    engine.on('log', ({ level, msg, detail, topic }) => {
      if (!live() || level === 'info') return;
      this.notice(level, msg, { detail, topic });
      // A failing engine is often the first to notice the service went away: check now.
      if (this.#state.kind === 'online') this.scheduleProbe(s, 500);
    });
  }

  private scheduleProbe(s: Session, ms: number): void {
    clearTimeout(s.timer);
    s.timer = setTimeout(() => void this.probe(s), ms);
  }

  /** One cheap call decides online / offline / refused. */
  async probe(s: Session | null = this.#session): Promise<ConnectionState> {
    if (!s || this.#session !== s) return this.#state;
    let next: ConnectionState;
    try {
      await s.probe.listBatches({ limit: 1 });
      next = { kind: 'online', url: s.conn.url };
    } catch (err) {
      if (isServiceError(err, 'proxy') && (err.proxy?.problem === 'credentials' || err.proxy?.problem === 'tunnel-refused')) {
        // The proxy refused: waiting does not help, a new setting does (signing in again with it).
        next = { kind: 'refused', url: s.conn.url, reason: serviceProblem(err, APP_HINTS) };
      } else if (isServiceError(err, 'proxy')) {
        // The proxy is down or cannot reach the service: offline, said as the proxy's problem, never "the service cannot be reached".
        const since = this.#state.kind === 'offline' ? this.#state.sinceMs : Date.now();
        next = { kind: 'offline', url: s.conn.url, reason: serviceProblem(err, APP_HINTS), sinceMs: since, atProxy: true };
      } else if (isServiceError(err, 'certificate')) {
        // The service answered, with a certificate this computer refuses: never "cannot be reached".
        next = { kind: 'refused', url: s.conn.url, reason: serviceProblem(err, APP_HINTS) };
      } else if (isServiceError(err) && err.kind === 'http' && (err.status === 401 || err.status === 403)) {
        // What happened and what helps: a new token for a refused sign-in; for a refusal of access (quota, trial) a new token does not.
        next = { kind: 'refused', url: s.conn.url, reason: serviceProblem(err, { signIn: 'sign in again with a new token', access: 'ask whoever manages the account' }) };
      } else {
        const since = this.#state.kind === 'offline' ? this.#state.sinceMs : Date.now();
        next = { kind: 'offline', url: s.conn.url, reason: isServiceError(err) ? offlineReason(err) : oneLine(err), sinceMs: since };
      }
    }
    if (this.#session !== s) return this.#state;
    this.setState(next);
    this.scheduleProbe(s, next.kind === 'online' ? (this.hooks.probeMs?.online ?? PROBE_ONLINE_MS) : (this.hooks.probeMs?.offline ?? PROBE_OFFLINE_MS));
    return next;
  }
}

function signedInAs(s: Session): string {
  const host = new URL(s.conn.url).host;
  if (s.tokenSource === 'sandbox') return `the built-in sandbox (${host})`;
  return `${host}${s.conn.context ? ` (context ${s.conn.context})` : ''}`;
}

/** What the app offers where a service error's words end in what helps. */
/** What a person can do in the app, named in its words (serviceProblem's hints). */
export const APP_HINTS = {
  caFile: '"CA certificate" under "More settings" on the Connection screen, then sign in again',
  proxySetting: '"Proxy" under "More settings" on the Connection screen',
};

/** How a session reaches its service, for the account view: the choice and the proxy's address, never its credentials. */
function proxyView(conn: Connection): Pick<AccountView, 'proxy' | 'proxyInUse' | 'proxyCredentials'> {
  return {
    proxy: conn.proxyChoice ?? { mode: conn.proxy === null ? 'none' : 'environment' },
    proxyInUse: conn.proxy ? new URL(conn.proxy.url).host : null,
    proxyCredentials: conn.proxy?.credentials !== undefined,
  };
}

/** An error as one line a person reads (a service client error in their words, not the call's name). */
export function oneLine(err: unknown): string {
  const msg = isServiceError(err) ? sentence(serviceProblem(err, APP_HINTS)) : inWords(err);
  return msg.split('\n')[0]?.slice(0, 500) ?? 'unknown error';
}

export type { RequestChannel };
