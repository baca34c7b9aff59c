/** The handler table: one function per request channel of shared/ui/contract.ts, over AppCore. */
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Handlers, Results } from '../../../shared/ui/contract.js';
import { codedError } from '../../../shared/ui/errors.js';
import { runNamed, sentence } from '../../../shared/ui/messages.js';
import type { FolderView, ResultTreeFolder } from '../../../shared/ui/views.js';
import { bandwidthSetting, setBandwidth } from './bandwidth.js';
import { caCertificates, keepConnectionCa } from '../config/ca-file.js';
import { normalizeNamespace, normalizeUrl, saveConnectionSettings, type Connection } from '../config/connection.js';
import { KeychainUnavailableError } from '../config/credentials.js';
import { localName } from '../config/local-names.js';
import type { Engine } from '../engine.js';
import type { AppCore } from './core.js';
import { exportRun, exportSelection, type ExportFormat } from './exports.js';
import { failedBySettings } from '../pipeline/retryable.js';
import { probeOnce } from '../service/probe.js';
import type { ProxyRoute } from '../service/proxy.js';
import { proxyFromForm, proxyRouteFor, type ProxyForm } from '../config/connection-proxy.js';
import { saveProxyCredentials } from '../config/proxy-credentials.js';
import { APP_HINTS, oneLine } from './core.js';
import { walkToService } from '../service/doctor.js';
import { mediaTypeOf, originalOnDisk, type OriginalOnDisk } from './original-type.js';
import { SNIFF_BYTES, sniffMediaType } from '../../../shared/media-type.js';
import type { FileRow } from '../store/index.js';
import { fileView, folderView, pageLayouts, queueView, resultFileView, runListView, runView, searchHitView } from './views.js';
import { DROPPED_DIR, isStagedCopy, STAGED_COPY_GONE } from '../pipeline/staged-drops.js';
import { inWords } from '../pipeline/context.js';

const ACCOUNT = 'default';
/** Largest original or PDF handed to the UI in one piece (pdf.js or the image decoders draw it in the page). */
const MAX_CONTENT_BYTES = 256 * 1024 * 1024;

const exportSuffix = (f: ExportFormat): string => (f === 'json' ? '.json' : f === 'csv-wide' ? ' (one row per document).csv' : '.csv');
const exportMime = (f: ExportFormat): string => (f === 'json' ? 'application/json' : 'text/csv');
const baseName = (p: string): string => p.split(/[\\/]+/).filter(Boolean).at(-1) ?? p;
/** A day for a file name, local time (YYYY-MM-DD); '' without one. */
const day = (ms: number | undefined): string => {
  if (ms === undefined) return '';
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

const exists = async (p: string): Promise<boolean> => (await stat(p).catch(() => null)) !== null;

export function createHandlers(core: AppCore): Handlers {
  const engine = (what: string): Engine => {
    const e = core.engine;
    if (!e) throw codedError(`sign in (or try the sandbox) first: ${what} needs the service`, 'sign-in-needed');
    return e;
  };
  const folderViews = async (): Promise<FolderView[]> => {
    const stats = core.store.browse.folderStats();
    return Promise.all(
      core.store.folders.list().map(async (row) => {
        const st = await stat(row.path).catch(() => null);
        const problem = !st ? `${row.path} does not exist (or cannot be read)` : !st.isDirectory() ? `${row.path} is not a folder` : null;
        return folderView(row, stats, core.store, problem, core.engine?.targetUnchecked(row.id) ?? false, core.engine?.fleet(row.id) ?? []);
      }),
    );
  };
  const foldersChanged = async (): Promise<void> => {
    core.events.emit('folders', await folderViews());
    core.emitApp();
  };
  const runOrThrow = (runId: number) => {
    const r = core.store.runs.run(runId);
    if (!r) throw new Error(`no run with id ${runId} in the local store`);
    return r;
  };
  const resultFiles = (runId: number) => {
    const layouts = pageLayouts(core.store, runId);
    return core.store.results.filesOfRun(runId).map((rf, i) => ({ rf, i, layouts }));
  };
  /** Path of an original (a local file) or a post-processed PDF (a downloaded artifact of a document). */
  const contentPath = (a: { which: 'original' | 'processed'; fileId?: number; documentId?: number }): string => {
    if (a.which === 'original') {
      if (a.fileId === undefined) throw new Error('give the fileId of the original');
      const f = core.store.files.get(a.fileId);
      if (!f) throw new Error(`no file with id ${a.fileId}`);
      return f.path;
    }
    if (a.documentId === undefined) throw new Error('give the documentId of the post-processed PDF');
    const runId = core.store.browse.runOfDocument(a.documentId);
    const art = runId === undefined ? undefined : core.store.results.artifactsOfRun(runId).find((x) => x.documentId === a.documentId && x.complete);
    if (!art) throw new Error('The processed PDF of this document has not been downloaded yet. It is fetched with the run\'s results; try again in a moment.');
    return art.localPath;
  };

  const signIn = async (conn: Connection, tokenSource: 'keychain' | 'memory' | 'sandbox'): Promise<void> => {
    await core.openSession(conn, tokenSource, { settle: true });
    core.emitApp();
  };

  /** The form's proxy for `url`: its choice and credentials, and the route they give ("from the system" asks the host). */
  const proxyOf = async (url: string, form: ProxyForm | undefined) => {
    const { choice, credentials } = proxyFromForm(form);
    const system = core.hooks.resolveProxy;
    const route = await proxyRouteFor(choice, url, { env: core.hooks.env ?? process.env, stored: credentials, system: system ? (u) => system(u) : undefined });
    return { choice, credentials, route };
  };

  const verify = async (url: string, token: string, context: string | undefined, ca: string | undefined, proxy: ProxyRoute | null): Promise<void> => {
    try {
      await probeOnce({ url, token, context, ca, proxy });
    } catch (err) {
      throw new Error(`${url}: ${oneLine(err)}`);
    }
  };

  /**
   * A file dropped in the browser, once done, is no longer kept here (staged-drops.ts): the viewer reads
   * the copy the service keeps of the upload instead, into memory only.
   */
  const uploadedCopy = async (fileId: number): Promise<Results['files.content']> => {
    const f = core.store.files.get(fileId);
    const client = core.engine?.client;
    if (!f?.servicePath || !client) throw new Error(`${STAGED_COPY_GONE}, and the service is not connected to give it back now`);
    const got = await client.readFile(f.servicePath).catch((e: unknown) => {
      throw new Error(`${STAGED_COPY_GONE}, and the service did not give it back: ${inWords(e)}`);
    });
    if (got.data.length > MAX_CONTENT_BYTES) throw new Error(`${f.originalName} is too large to show here (${Math.round(got.data.length / 1048576)} MB)`);
    const bytes = new Uint8Array(got.data);
    return { name: f.originalName, mime: mediaTypeOf(bytes), bytes };
  };

  /** Whether the viewer can show a file's original, and its kind: on disk, or a done drop's copy on the service (its first bytes). */
  const originalOf = async (local: FileRow | undefined): Promise<OriginalOnDisk> => {
    if (!local) return { present: false, type: null };
    const onDisk = await originalOnDisk(local.path);
    const client = core.engine?.client;
    if (onDisk.present || !local.servicePath || !client || !isStagedCopy(core.hooks.home, local.path)) return onDisk;
    const head = await client.readFile(local.servicePath, { range: { start: 0, end: SNIFF_BYTES - 1 } }).catch(() => null);
    return head ? { present: true, type: sniffMediaType(new Uint8Array(head.data)) } : onDisk;
  };

  const stageRoot = (dropId: string): string => {
    if (!/^[a-f0-9]{8,64}$/.test(dropId)) throw new Error('dropId must be 8 to 64 lower-case hex digits');
    return join(core.hooks.home, DROPPED_DIR, dropId);
  };

  return {
    'app.info': async () => core.info(),

    'connection.test': async ({ url, token, context, ca, proxy }) => {
      const u = normalizeUrl(url);
      const useToken = token || core.tokenFor(u);
      if (!useToken) return { ok: false, message: 'give a token to test', steps: [] };
      try {
        // The way walked step by step, as `docsync doctor` walks it (service/doctor.ts); the first failing step is the answer.
        const via = await proxyOf(u, proxy);
        const steps = await walkToService({
          url: u, token: useToken, context: context || undefined, ca: ca ? caCertificates(ca, 'the CA certificate') : undefined, proxy: via.route, proxyMode: via.choice.mode,
        }, APP_HINTS);
        const failed = steps.find((s) => s.outcome === 'failed');
        if (!failed) return { ok: true, message: `${u} answered and accepted the token`, steps };
        return { ok: false, message: `${u}: ${sentence(failed.said)}${failed.help ? `; ${failed.help}` : ''}`, steps };
      } catch (err) {
        return { ok: false, message: oneLine(err), steps: [] };
      }
    },

    'connection.signIn': async ({ url, token, context, namespace, ca, proxy, sessionOnly }) => {
      const u = normalizeUrl(url);
      const ctx = context?.trim() ? context.trim() : undefined;
      const ns = normalizeNamespace(namespace);
      const pem = ca ? caCertificates(ca, 'the CA certificate') : undefined;
      const via = await proxyOf(u, proxy);
      await verify(u, token, ctx, pem, via.route);
      const conn: Connection = { url: u, token, context: ctx, namespace: ns, ca: pem, proxyChoice: via.choice, proxy: via.route, source: sessionOnly ? 'memory' : 'keychain' };
      if (sessionOnly) {
        await core.memoryTokens.set(u, ACCOUNT, token);
        await saveProxyCredentials(core.memoryTokens, u, ACCOUNT, via.credentials ?? null);
        await signIn(conn, 'memory');
        return core.info();
      }
      try {
        await core.hooks.credentials.set(u, ACCOUNT, token);
        // The proxy's user and password beside the token, never in connection.json.
        await saveProxyCredentials(core.hooks.credentials, u, ACCOUNT, via.credentials ?? null);
        core.setKeychainProblem(null);
      } catch (err) {
        if (err instanceof KeychainUnavailableError) {
          core.setKeychainProblem(err.message);
          core.emitApp();
          throw new Error(`${err.message}. Choose "session only" to keep the token in memory until DocSync stops.`);
        }
        throw err;
      }
      const caFile = await keepConnectionCa(core.hooks.home, pem ?? null);
      await saveConnectionSettings(core.hooks.home, { url: u, account: ACCOUNT, ...(ctx ? { context: ctx } : {}), ...(ns ? { namespace: ns } : {}), ...(caFile ? { caFile } : {}), proxy: via.choice });
      await signIn(conn, 'keychain');
      return core.info();
    },

    'connection.signOut': async () => {
      const acc = core.info().account;
      if (acc?.tokenSource === 'keychain') {
        await core.hooks.credentials.delete(acc.url, ACCOUNT).catch(() => false);
        await saveProxyCredentials(core.hooks.credentials, acc.url, ACCOUNT, null);
        await saveConnectionSettings(core.hooks.home, null);
        await keepConnectionCa(core.hooks.home, null);
      } else if (acc?.tokenSource === 'memory') {
        await core.memoryTokens.delete(acc.url, ACCOUNT);
        await saveProxyCredentials(core.memoryTokens, acc.url, ACCOUNT, null);
      }
      await core.closeSession();
      core.emitApp();
      return core.info();
    },

    'connection.trySandbox': async () => {
      const sb = await core.sandbox();
      await signIn({ url: sb.url, token: sb.token, context: undefined, proxy: null, source: 'memory' }, 'sandbox');
      return core.info();
    },

    'status.get': async () => core.status(),
    'engine.pause': async () => {
      engine('pausing').pause();
      core.statusChanged();
      return core.status();
    },
    'engine.resume': async () => {
      engine('resuming').resume();
      core.statusChanged();
      return core.status();
    },

    'files.page': async ({ states, folderId, name, offset, limit }) => {
      const page = core.store.browse.queue({ ...(states ? { states } : {}), ...(folderId !== undefined ? { folderId } : {}), ...(name ? { name } : {}) }, offset, limit);
      return { total: page.total, offset, rows: page.rows.map((r) => queueView(r, core.engine?.batchClosesAt(r) ?? null)) };
    },
    'files.history': async ({ id }) => core.store.files.history(id).map((e) => ({ from: e.fromState, to: e.toState, atMs: e.atMs, error: e.error })),
    'files.retry': async ({ id }) => fileView(core.store, await engine('retrying').retryFile(id)),
    'files.cancel': async ({ id }) => fileView(core.store, engine('cancelling').cancelFile(id)),
    'files.reveal': async ({ id }) => {
      const f = core.store.files.get(id);
      if (!f) throw new Error(`no file with id ${id}`);
      const revealed = (await exists(f.path)) && core.hooks.reveal ? await core.hooks.reveal(f.path) : false;
      return { path: f.path, revealed };
    },
    'files.content': async (a) => {
      const path = contentPath(a);
      const st = await stat(path).catch(() => null);
      if (!st?.isFile() && a.which === 'original' && isStagedCopy(core.hooks.home, path)) return uploadedCopy(a.fileId as number);
      if (!st?.isFile()) throw new Error(`${path} is no longer there`);
      if (st.size > MAX_CONTENT_BYTES) throw new Error(`${path} is too large to show here (${Math.round(st.size / 1048576)} MB); open it instead`);
      const name = path.split(/[\\/]/).pop() ?? 'file';
      const bytes = new Uint8Array(await readFile(path));
      return { name, mime: mediaTypeOf(bytes), bytes };
    },
    'files.openExternal': async (a) => {
      const path = contentPath(a);
      // A done drop's copy is gone: not opened here, so the page shows it from the service's copy (files.content).
      if (!(await exists(path)) && a.which === 'original' && isStagedCopy(core.hooks.home, path)) return { path, opened: false };
      if (!(await exists(path))) throw new Error(`${path} is no longer there`);
      return { path, opened: core.hooks.openPath ? await core.hooks.openPath(path) : false };
    },

    'folders.list': folderViews,
    'folders.add': async ({ settings }) => {
      // Offline, the person is not kept waiting for a service that cannot answer: the folder is marked not checked.
      const row = await engine('watching a folder').addFolder(settings, { check: core.connection.kind !== 'offline' });
      await foldersChanged();
      return (await folderViews()).find((f) => f.id === row.id) as FolderView;
    },
    'folders.update': async ({ id, settings }) => {
      await engine('changing a folder').updateFolder(id, settings, { check: core.connection.kind !== 'offline' });
      await foldersChanged();
      return (await folderViews()).find((f) => f.id === id) as FolderView;
    },
    'folders.remove': async ({ id }) => {
      const row = core.store.folders.get(id);
      if (!row) throw new Error(`no hot folder with id ${id}`);
      const e = core.engine;
      if (e) await e.removeFolder(row.path);
      else core.store.folders.remove(id);
      await foldersChanged();
      return { removed: true };
    },
    'folders.setEnabled': async ({ id, enabled }) => {
      if (!core.store.folders.update(id, { enabled })) throw new Error(`no hot folder with id ${id}`);
      // The engine starts or stops the folder's watcher; files already queued carry on.
      await core.engine?.syncFolders();
      await foldersChanged();
      return (await folderViews()).find((f) => f.id === id) as FolderView;
    },
    'folders.pick': async () => ({ path: core.hooks.pickFolder ? await core.hooks.pickFolder() : null }),
    'folders.failedBySettings': async ({ id }) => {
      if (!core.store.folders.get(id)) throw new Error(`no hot folder with id ${id}`);
      return { count: failedBySettings(core.store, id).length };
    },
    'folders.retryFailed': async ({ id }) => {
      if (!core.store.folders.get(id)) throw new Error(`no hot folder with id ${id}`);
      const e = engine('retrying');
      const r = await e.retryFolderFiles(id, failedBySettings(core.store, id).map((f) => f.id));
      return { retried: r.retried, problems: r.problems.map(oneLine) };
    },

    'runs.page': async ({ offset, limit }) => {
      const p = core.store.browse.runs(offset, limit);
      return { total: p.total, offset, rows: p.rows.map((r) => runListView(core.store, r)) };
    },
    'results.tree': async () => {
      const out = new Map<number | null, ResultTreeFolder>();
      for (const r of core.store.browse.resultTree()) {
        const folder = r.folderId === null ? undefined : core.store.folders.get(r.folderId);
        const key = folder ? folder.id : null;
        const node = out.get(key) ?? { folderId: key, path: folder?.path ?? null, runs: [] };
        node.runs.push({ id: r.runId, serviceRunId: r.serviceRunId, createdMs: r.createdMs, files: r.files, status: r.status, origin: core.store.services.label(r.serviceId), deploymentId: r.deploymentId, appId: r.appId });
        out.set(key, node);
      }
      return [...out.values()];
    },
    'results.run': async ({ runId }) => {
      const run = runOrThrow(runId);
      const files = await Promise.all(resultFiles(runId).map(async ({ rf, i, layouts }) => {
        const local = rf.fileId === null ? undefined : core.store.files.get(rf.fileId);
        return resultFileView(core.store, rf, i, layouts, await originalOf(local));
      }));
      const caseFields = core.store.results.caseFields(runId).map((c) => ({ name: c.name, value: c.value, errorMsg: c.errorMsg, valid: c.valid, failures: c.failures }));
      return { run: runView(core.store, run), files, caseFields };
    },
    'results.file': async ({ fileId }) => {
      const out = [];
      for (const mine of core.store.results.resultsOfFile(fileId)) {
        const all = resultFiles(mine.runId);
        const hit = all.find((x) => x.rf.id === mine.id);
        if (!hit) continue;
        out.push(resultFileView(core.store, hit.rf, hit.i, hit.layouts, await originalOf(core.store.files.get(fileId))));
      }
      return out;
    },
    search: async ({ query, limit }) => core.store.search(query, limit ?? 50, { before: '\u0001', after: '\u0002' }).map((h) => searchHitView(core.store, h)),
    'export.run': async ({ runId, format }) => {
      const run = runOrThrow(runId);
      const out = exportRun(core.store, runId, format);
      if (out.files === 0) throw new Error(`${runNamed(run.createdMs)} has no results stored yet: there is nothing to export.`);
      // The run id is the service's: a file name made of it is made safe (issue 26).
      return { name: `${localName(run.serviceRunId)}${exportSuffix(format)}`, mime: exportMime(format), text: out.text };
    },
    'export.selection': async ({ folderId, sinceMs, untilMs, format }) => {
      const folder = folderId === undefined || folderId === 0 ? undefined : core.store.folders.get(folderId);
      if (folderId && !folder) throw new Error('That folder is no longer watched');
      const out = exportSelection(core.store, { folderId: folderId === undefined ? undefined : folder?.id ?? null, sinceMs, untilMs }, format);
      if (out.runs === 0) throw new Error('No stored results match: choose another folder or dates');
      const name = ['results', folder ? baseName(folder.path) : folderId === 0 ? 'dropped in by hand' : '', day(sinceMs), untilMs === undefined ? '' : `to ${day(untilMs - 1)}`]
        .filter(Boolean).join(' ');
      return { name: `${name}${exportSuffix(format)}`, mime: exportMime(format), text: out.text };
    },

    'upload.paths': async ({ paths, target }) => (await engine('uploading').uploadFiles(paths, target)).map((f) => fileView(core.store, f)),
    'upload.stage': async ({ dropId, relPath, bytes }) => {
      const root = stageRoot(dropId);
      const parts = relPath.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
      if (parts.length === 0 || parts.some((p) => p === '..' || p.includes('\0'))) throw new Error(`"${relPath}" is not a file name inside the dropped folder`);
      const dest = resolve(root, ...parts);
      if (!dest.startsWith(root + sep)) throw new Error(`"${relPath}" is not a file name inside the dropped folder`);
      await mkdir(dirname(dest), { recursive: true });
      // Written beside and renamed: a half-written drop never looks like a whole file.
      const tmp = join(dirname(dest), `.${parts[parts.length - 1]}.${process.pid}.part`);
      await writeFile(tmp, bytes);
      await rename(tmp, dest);
      return { staged: bytes.byteLength };
    },
    'upload.discard': async ({ dropId }) => {
      await rm(stageRoot(dropId), { recursive: true, force: true });
      return { discarded: true };
    },
    'upload.staged': async ({ dropId, target }) => {
      const root = stageRoot(dropId);
      if (!(await exists(root))) throw new Error('nothing was staged for this drop');
      return (await engine('uploading').uploadFiles([root], target)).map((f) => fileView(core.store, f));
    },
    'bandwidth.get': async () => bandwidthSetting(core.hooks.home, core.bandwidth?.override ?? null),
    'bandwidth.set': async ({ spec }) => {
      const view = await setBandwidth(core.hooks.home, core.bandwidth?.override ?? null, spec);
      core.statusChanged();
      return view;
    },
  };
}
