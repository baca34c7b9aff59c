// The preload (electron/preload/index.ts) bundled as electron-vite bundles it: one CommonJS file
// that requires nothing but 'electron' (a sandboxed preload can load nothing else). Electron cannot
// run on these machines, so the bundle is evaluated with a small recorder in place of the
// 'electron' module to check what it exposes: one method per contract channel, nothing generic,
// error replies handed back whole (message and code), and event listeners that never see the IPC event object.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { rolldown } from 'rolldown';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_CHANNELS, REQUEST_CHANNELS, type PreloadApi } from '../../../shared/ui/contract.js';

const ROOT = join(import.meta.dirname, '../../..');

async function bundlePreload(): Promise<string> {
  const b = await rolldown({
    input: join(ROOT, 'electron/preload/index.ts'),
    external: ['electron'],
    platform: 'node',
    resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  });
  try {
    const { output } = await b.generate({ format: 'cjs' });
    expect(output).toHaveLength(1);
    return output[0].code;
  } finally {
    await b.close();
  }
}

type Listener = (event: unknown, payload: unknown) => void;

/** Records what the preload does with the electron module. */
function loadPreload(code: string, reply: (channel: string, args: unknown) => unknown) {
  const exposed = new Map<string, unknown>();
  const listeners = new Map<string, Set<Listener>>();
  const invoked: [string, unknown][] = [];
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
    ipcRenderer: {
      invoke: async (channel: string, args: unknown) => {
        invoked.push([channel, args]);
        return reply(channel, args);
      },
      on: (channel: string, fn: Listener) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)!.add(fn);
      },
      removeListener: (channel: string, fn: Listener) => listeners.get(channel)?.delete(fn),
    },
    webUtils: {
      getPathForFile: (f: { path?: string }) => {
        if (typeof f?.path !== 'string') throw new TypeError('not a File');
        return f.path;
      },
    },
  };
  const required: string[] = [];
  const module = { exports: {} };
  runInNewContext(code, {
    module, exports: module.exports,
    require: (name: string) => {
      required.push(name);
      if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
      return electron;
    },
  });
  return { exposed, listeners, invoked, required, emit: (channel: string, payload: unknown) => listeners.get(channel)?.forEach((fn) => fn({ sender: 'ipc internals' }, payload)) };
}

describe('preload bundle', () => {
  let code: string;
  beforeAll(async () => {
    code = await bundlePreload();
  });

  it('is CommonJS that requires only electron', () => {
    expect(code).not.toMatch(/^\s*(import|export)\s/m);
    const requires = [...code.matchAll(/require\((["'`])([^"'`]+)\1\)/g)].map((m) => m[2]);
    expect(new Set(requires)).toEqual(new Set(['electron']));
    expect(code).not.toMatch(/import\(/);
  });

  it('exposes window.docsync with one method per request and event channel, and nothing generic', () => {
    const p = loadPreload(code, () => ({ ok: true, result: null }));
    expect(p.required).toEqual(['electron']);
    expect([...p.exposed.keys()]).toEqual(['docsync']);
    const api = p.exposed.get('docsync') as PreloadApi;
    expect(Object.keys(api).sort()).toEqual(['events', 'pathForFile', 'requests']);
    expect(Object.keys(api.requests).sort()).toEqual([...REQUEST_CHANNELS].sort());
    expect(Object.keys(api.events).sort()).toEqual([...EVENT_CHANNELS].sort());
    for (const fn of [...Object.values(api.requests), ...Object.values(api.events), api.pathForFile]) expect(typeof fn).toBe('function');
    expect(code).not.toMatch(/\bsend\(|sendSync\(|postMessage\(/);
  });

  it('invokes the namespaced channel with the arguments as given and hands back the reply envelope whole', async () => {
    const p = loadPreload(code, (channel) =>
      channel === 'docsync:call:files.retry' ? { ok: false, error: 'sign in (or try the sandbox) first: retrying needs the service', code: 'sign-in-needed' } : { ok: true, result: { total: 0, offset: 0, rows: [] } });
    const api = p.exposed.get('docsync') as PreloadApi;
    await expect(api.requests['files.page']({ offset: 0, limit: 50 })).resolves.toEqual({ ok: true, result: { total: 0, offset: 0, rows: [] } });
    // Plain data, not a thrown Error: an Error crossing the contextBridge would keep only its message, not its code.
    await expect(api.requests['files.retry']({ id: 9 })).resolves.toEqual({ ok: false, error: 'sign in (or try the sandbox) first: retrying needs the service', code: 'sign-in-needed' });
    expect(p.invoked).toEqual([['docsync:call:files.page', { offset: 0, limit: 50 }], ['docsync:call:files.retry', { id: 9 }]]);
  });

  it('passes event payloads without the IPC event, and unsubscribes', () => {
    const p = loadPreload(code, () => ({ ok: true, result: null }));
    const api = p.exposed.get('docsync') as PreloadApi;
    const seen: unknown[] = [];
    const off = api.events.status((s) => seen.push(s));
    api.events.run((r) => seen.push(['run', r]));
    p.emit('docsync:event:status', { paused: true });
    p.emit('docsync:event:run', { id: 1 });
    p.emit('docsync:event:file', { id: 2 });
    off();
    p.emit('docsync:event:status', { paused: false });
    expect(seen).toEqual([{ paused: true }, ['run', { id: 1 }]]);
    expect(p.listeners.get('docsync:event:status')?.size).toBe(0);
  });

  it("gives a dropped file's path, or '' when it has none", () => {
    const p = loadPreload(code, () => ({ ok: true, result: null }));
    const api = p.exposed.get('docsync') as PreloadApi;
    expect(api.pathForFile({ path: '/scans/a.pdf' })).toBe('/scans/a.pdf');
    expect(api.pathForFile('not a file')).toBe('');
  });
});

describe('electron-vite config', () => {
  it('builds the preload as index.cjs, the file the main process loads', async () => {
    const config = (await import('../../../electron.vite.config.js')).default as {
      preload: { build: { rollupOptions: { output: { format: string; entryFileNames: string } } } };
    };
    expect(config.preload.build.rollupOptions.output).toMatchObject({ format: 'cjs', entryFileNames: '[name].cjs' });
    expect(readFileSync(join(ROOT, 'electron/main/index.ts'), 'utf8')).toContain("'../preload/index.cjs'");
  });
});
