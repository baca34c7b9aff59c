// The desktop app itself through Playwright's Electron driver: the locked-down window, the main
// flows (sandbox in one click, a hot folder, a file going through to Done), the remembered window
// size and the single instance. Runs where the Electron binary is installed and a display exists
// (xvfb-run on Linux); skipped with the reason elsewhere (Electron cannot be downloaded on the
// project's build machines, see electron/engine/README.md, "Desktop app").
import { _electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { REQUEST_CHANNELS } from '../../shared/ui/contract.js';
import { invoicePdf } from '../helpers/pdf-fixtures.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The Electron binary, or null when the package was installed without it. */
function electronBinary(): string | null {
  try {
    // The electron package exports its binary's path and throws when it has none.
    const path = createRequire(join(ROOT, 'package.json'))('electron') as unknown;
    return typeof path === 'string' && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

const ELECTRON = electronBinary();
const HAS_DISPLAY = process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);

test.skip(!ELECTRON, 'Electron binary not installed (cannot be downloaded on this machine)');
test.skip(!HAS_DISPLAY, 'no display for Electron: run under xvfb-run');
test.describe.configure({ mode: 'serial' });

let home: string;
let hot: string;
let app: ElectronApplication;
let page: Page;

/** Chromium refuses to run as root with its OS sandbox; the renderer sandbox (JS side) stays on. */
const chromiumArgs = (): string[] => (process.getuid?.() === 0 ? ['--no-sandbox'] : []);

/** This test's data home and no service from the environment: the app starts signed out. */
function appEnv(): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('DOCSYNC_')));
  return { ...env, DOCSYNC_HOME: home };
}

async function launch(): Promise<void> {
  app = await _electron.launch({
    executablePath: ELECTRON as string,
    args: [...chromiumArgs(), ROOT],
    cwd: ROOT,
    env: appEnv(),
    timeout: 60_000,
  });
  page = await app.firstWindow();
  await page.waitForLoadState('domcontentloaded');
}

const screens = (): ReturnType<Page['getByRole']> => page.getByRole('navigation', { name: 'Screens' });

test.beforeAll(async () => {
  test.setTimeout(15 * 60_000);
  // What `npm start` runs first: build, then better-sqlite3 for Electron's ABI into out/main.
  execFileSync('npm', ['run', '-s', 'prestart'], { cwd: ROOT, stdio: 'inherit' });
  home = mkdtempSync(join(tmpdir(), 'docsync-electron-home-'));
  hot = mkdtempSync(join(tmpdir(), 'docsync-electron-hot-'));
  await launch();
});

test.afterAll(async () => {
  await app?.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(hot, { recursive: true, force: true });
});

test('the window is locked down and the page sees only the contract', async () => {
  const url = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.webContents.getURL());
  // Served from the app's own scheme, not file:// (electron/main/app-protocol.ts), with the CSP as a header.
  expect(url).toBe('app://docsync/index.html');
  const head = await page.evaluate(async () => {
    const r = await fetch('/index.html');
    return { csp: r.headers.get('content-security-policy'), outside: (await fetch('/..%2fmain%2findex.js')).status };
  });
  expect(head.csp).toMatch(/^default-src 'self'; script-src 'self'/);
  expect(head.outside).toBe(404);

  // The page runs without Node (no require/process) and gets the API through contextBridge,
  // whose functions are native proxies into the isolated preload world.
  type Api = { requests: Record<string, (a: unknown) => Promise<unknown>>; events: Record<string, unknown>; pathForFile: unknown };
  const seen = await page.evaluate(() => {
    const w = globalThis as unknown as { require?: unknown; process?: unknown; docsync: Api };
    return {
      require: typeof w.require, process: typeof w.process, keys: Object.keys(w.docsync).sort(),
      requests: Object.keys(w.docsync.requests).length, bridged: String(w.docsync.requests['app.info']).includes('[native code]'),
    };
  });
  expect(seen).toEqual({ require: 'undefined', process: 'undefined', keys: ['events', 'pathForFile', 'requests'], requests: REQUEST_CHANNELS.length, bridged: true });

  // A bad argument is refused by the engine with its one-line reason, in the reply envelope.
  const err = await page.evaluate(() =>
    (globalThis as unknown as { docsync: Api }).docsync.requests['files.retry']!({ id: 'x' }).then((r) => (r as { ok: boolean; error?: string }).error ?? 'accepted'));
  expect(err).toMatch(/files\.retry\.id must be a whole number/);

  // No navigation away, no new windows.
  await page.evaluate(() => {
    const g = globalThis as unknown as { location: { href: string }; open(url: string, target: string): unknown };
    g.open('https://example.com/', '_blank');
    g.location.href = 'https://example.com/';
  });
  await page.waitForTimeout(500);
  expect(page.url()).toMatch(/\/out\/renderer\/index\.html/);
  expect(app.windows()).toHaveLength(1);
});

test('try the sandbox, add a hot folder, and see a file go through to Done', async ({}, info) => {
  test.setTimeout(180_000);
  await page.getByRole('button', { name: 'Try the sandbox' }).first().click();
  await expect(page.getByRole('button', { name: /^Online · 127\.0\.0\.1:\d+/ })).toBeVisible({ timeout: 30_000 });

  await screens().getByRole('button', { name: 'Hot folders' }).click();
  await page.getByRole('button', { name: 'Add folder' }).first().click();
  const form = page.getByRole('form', { name: 'Add a hot folder' });
  // The path comes from the system's folder picker; the native dialog is stubbed in the main process.
  await app.evaluate(({ dialog }, path) => {
    dialog.showOpenDialog = (async () => ({ canceled: false, filePaths: [path] })) as unknown as typeof dialog.showOpenDialog;
  }, hot);
  await form.getByRole('button', { name: 'Choose…' }).click();
  await expect(form.getByLabel('Folder to watch')).toHaveValue(hot);
  await form.getByLabel('Deployment id').fill('sandbox-invoices');
  await form.getByLabel('Wait after the last file (seconds)').fill('1');
  await form.getByLabel('Longest wait (seconds)').fill('1');
  await form.getByRole('button', { name: 'Add folder' }).click();
  await expect(page.getByRole('listitem').filter({ hasText: hot })).toBeVisible();
  await page.screenshot({ path: info.outputPath('electron-folders.png') });

  writeFileSync(join(hot, 'invoice-e2e.pdf'), await invoicePdf({ invoiceNumber: 'INV-E2E-1', invoiceDate: 'March 1, 2026', dueDate: 'March 31, 2026', total: '$1,234.50', vendor: 'Desktop Test Ltd' }));
  await screens().getByRole('button', { name: 'Activity' }).click();
  const row = page.getByRole('row').filter({ hasText: 'invoice-e2e.pdf' });
  await expect(row.getByText('Done', { exact: true })).toBeVisible({ timeout: 120_000 });
  await page.screenshot({ path: info.outputPath('electron-activity.png') });
});

test('a second launch brings the running window forward and exits', async () => {
  const second = spawn(ELECTRON as string, [...chromiumArgs(), ROOT], { cwd: ROOT, env: appEnv(), stdio: 'ignore' });
  const code = await new Promise<number | null>((done, fail) => {
    const t = setTimeout(() => fail(new Error('the second instance did not exit within 20 s')), 20_000);
    second.once('exit', (c) => {
      clearTimeout(t);
      done(c);
    });
  });
  expect(code).toBe(0);
  expect(app.windows()).toHaveLength(1);
});

test('remembers the window size and position across restarts', async () => {
  await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.setBounds({ x: 40, y: 30, width: 1000, height: 700 }));
  await app.close();
  const saved = JSON.parse(readFileSync(join(home, 'window-state.json'), 'utf8')) as { bounds: { width: number; height: number } };
  expect(saved.bounds).toMatchObject({ width: 1000, height: 700 });

  await launch();
  const bounds = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows()[0]!.getBounds());
  expect(bounds).toMatchObject({ width: 1000, height: 700 });
  // The store outlived the restart: the folder is still there.
  await screens().getByRole('button', { name: 'Hot folders' }).click();
  await expect(page.getByRole('listitem').filter({ hasText: hot })).toBeVisible();
});
