/**
 * The desktop shell, thin by design: lifecycle, one locked-down window, IPC to the engine's
 * AppCore, tray and notifications. Everything the UI does lives in the engine (plain Node, shared
 * with `docsync serve`) and the renderer.
 */
import { app, dialog, type BrowserWindow } from 'electron';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppCore } from '../engine/app/core.js';
import { APP_NAME, dataHome } from '../engine/config/paths.js';
import { privateByDefault } from '../engine/config/private-files.js';
import { APP_INDEX_URL, registerAppScheme, serveRenderer } from './app-protocol.js';
import { desktopHooks } from './hooks.js';
import { registerIpc } from './ipc.js';
import { log, oneLine } from './log.js';
import { startRunNotifications } from './notify.js';
import { installSecurity, installSessionGuards } from './security.js';
import { StatusTray } from './tray.js';
import { createMainWindow, focusWindow, rendererDir } from './window.js';

// One data home for the desktop app, `docsync serve` and the CLI (DOCSYNC_HOME or the OS's app
// data folder); Chromium's own caches go to a subfolder so they do not mix with the store.
// What the app writes is its owner's alone, from the first file (issue 26): umask 077, home 0700.
privateByDefault();
const home = dataHome();
mkdirSync(home, { recursive: true, mode: 0o700 });
app.setName(APP_NAME);
app.setPath('userData', home);
app.setPath('sessionData', join(home, 'chromium'));
app.enableSandbox();
// The page is served from app://docsync, not file:// (app-protocol.ts); Electron wants the scheme before ready.
registerAppScheme();

const devUrl = process.env.ELECTRON_RENDERER_URL;
const renderer = rendererDir(import.meta.dirname);
const preload = join(import.meta.dirname, '../preload/index.cjs');

let win: BrowserWindow | null = null;
let core: AppCore | null = null;
let tray: StatusTray | null = null;
const cleanups: (() => void)[] = [];

function openWindow(): void {
  if (win && !win.isDestroyed()) {
    focusWindow(win);
    return;
  }
  win = createMainWindow({ home, preload, indexUrl: APP_INDEX_URL, devUrl });
  win.on('closed', () => {
    win = null;
  });
}

async function start(): Promise<void> {
  installSessionGuards();
  serveRenderer(renderer);
  const c = new AppCore(desktopHooks(home, () => win));
  core = c;
  // Handlers first: the window's first calls may arrive while the engine is still starting.
  cleanups.push(registerIpc(c, { indexUrl: APP_INDEX_URL, devUrl }));
  try {
    await c.start();
  } catch (err) {
    dialog.showErrorBox('DocSync cannot start', `${oneLine(err)}\n\nData folder: ${home}`);
    app.exit(1);
    return;
  }
  openWindow();
  try {
    tray = new StatusTray(c, { open: openWindow, quit: () => app.quit() });
  } catch (err) {
    // Some desktops have no tray; the window still works and closing it quits.
    log('warn', `no tray icon: ${oneLine(err)}`);
  }
  cleanups.push(startRunNotifications(c, openWindow));
  log('info', `started (data ${home})`);
}

if (!app.requestSingleInstanceLock()) {
  // Another DocSync owns this data home; it is told to come forward (second-instance) instead.
  app.quit();
} else {
  installSecurity({ indexUrl: APP_INDEX_URL, devUrl });
  app.on('second-instance', () => openWindow());
  // macOS: clicking the dock icon with no window open.
  app.on('activate', () => {
    if (core) openWindow();
  });
  // With a tray icon the engine keeps syncing in the background; without one, closing quits.
  app.on('window-all-closed', () => {
    if (!tray) app.quit();
  });

  let stopping = false;
  app.on('before-quit', (e) => {
    if (stopping || !core) return;
    // Let the engine finish its current step and close the store before the process ends.
    e.preventDefault();
    stopping = true;
    const c = core;
    for (const f of cleanups.splice(0)) f();
    tray?.destroy();
    tray = null;
    c.stop()
      .catch((err: unknown) => log('error', `stopping the engine: ${oneLine(err)}`))
      .finally(() => {
        core = null;
        app.quit();
      });
  });

  app.whenReady().then(start, (err: unknown) => {
    log('error', `Electron did not start: ${oneLine(err)}`);
    app.exit(1);
  });
}
