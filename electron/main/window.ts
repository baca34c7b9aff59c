/**
 * The main window: locked-down web preferences, the remembered size and position, and the built
 * renderer from the app's own scheme (app-protocol.ts), or the dev server while developing.
 */
import { BrowserWindow, nativeTheme, screen } from 'electron';
import { join } from 'node:path';
import { log, oneLine } from './log.js';
import { MIN_SIZE, placeWindow, readWindowState, writeWindowState, type WindowState } from './window-state.js';

export interface WindowOptions {
  home: string;
  preload: string;
  /** The built renderer's page (APP_INDEX_URL). */
  indexUrl: string;
  devUrl?: string | undefined;
}

export function createMainWindow(o: WindowOptions): BrowserWindow {
  const place = placeWindow(readWindowState(o.home), screen.getAllDisplays().map((d) => d.workArea));
  const win = new BrowserWindow({
    ...(place.x !== undefined && place.y !== undefined ? { x: place.x, y: place.y } : {}),
    width: place.width,
    height: place.height,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    title: 'DocSync',
    show: false,
    // Matches the renderer's background so a dark desktop gets no white flash.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#1b1d21' : '#ffffff',
    webPreferences: {
      preload: o.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      // Dropped files are handled by the page; the window must not navigate to them.
      navigateOnDragDrop: false,
      spellcheck: false,
    },
  });
  win.once('ready-to-show', () => {
    if (place.maximized) win.maximize();
    win.show();
  });

  let timer: NodeJS.Timeout | undefined;
  const save = (): void => {
    clearTimeout(timer);
    if (win.isDestroyed() || win.isMinimized() || win.isFullScreen()) return;
    const state: WindowState = { bounds: win.getNormalBounds(), maximized: win.isMaximized() };
    try {
      writeWindowState(o.home, state);
    } catch (err) {
      log('warn', `could not remember the window size: ${oneLine(err)}`);
    }
  };
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(save, 500);
  };
  win.on('resize', later);
  win.on('move', later);
  win.on('maximize', later);
  win.on('unmaximize', later);
  win.on('close', save);

  void win.loadURL(o.devUrl ?? o.indexUrl);
  return win;
}

/** Brings a window to the front (second launch, tray click, notification click). */
export function focusWindow(win: BrowserWindow): void {
  if (win.isMinimized()) win.restore();
  if (!win.isVisible()) win.show();
  win.focus();
}

/** The built renderer's folder next to the built main process (out/main -> out/renderer). */
export const rendererDir = (mainDir: string): string => join(mainDir, '../renderer');
