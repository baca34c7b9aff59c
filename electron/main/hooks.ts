/**
 * What the desktop gives the engine's AppCore: the keychain, the OS file manager and default
 * programs, a folder picker, and the built-in sandbox started inside this process.
 */
import { app, dialog, session, shell, type BrowserWindow } from 'electron';
import { join } from 'node:path';
import { KeytarStore } from '../engine/config/credentials.js';
import type { HostHooks } from '../engine/app/host-hooks.js';
// The shell, like the CLI, may start the sandbox only through its public entry (eslint enforces it).
import { startBuiltInSandbox } from '../../sandbox/index.js';
import { log } from './log.js';
import { isSafeToOpen } from './trust.js';

export function desktopHooks(home: string, window: () => BrowserWindow | null): HostHooks {
  return {
    host: 'electron',
    home,
    version: app.getVersion(),
    credentials: new KeytarStore(),
    async startSandbox() {
      const sb = await startBuiltInSandbox({ dataDir: join(home, 'sandbox') });
      log('info', `built-in sandbox listening on ${sb.url}`);
      return sb;
    },
    async reveal(path) {
      shell.showItemInFolder(path);
      return true;
    },
    async openPath(path) {
      // Never hand the OS something it would run; show it in its folder instead.
      if (!isSafeToOpen(path)) {
        log('warn', `not opening a file of this type with its default program; revealing it instead`);
        shell.showItemInFolder(path);
        return false;
      }
      const err = await shell.openPath(path);
      if (err) log('warn', `could not open a file: ${err}`);
      return err === '';
    },
    async resolveProxy(url) {
      // Chromium's own answer: the OS's proxy settings, a PAC file or WPAD included.
      await app.whenReady();
      return session.defaultSession.resolveProxy(url);
    },
    async pickFolder() {
      const opts = { title: 'Choose a hot folder', properties: ['openDirectory', 'createDirectory'] as Array<'openDirectory' | 'createDirectory'> };
      const win = window();
      const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
      return r.canceled ? null : (r.filePaths[0] ?? null);
    },
  };
}
