import { homedir } from 'node:os';
import { join } from 'node:path';

/** Folder name of the desktop app's per-user data (Electron's app.getPath('userData') for "DocSync"). */
export const APP_NAME = 'DocSync';

/**
 * The data directory shared by the desktop app, `docsync serve` and the CLI: DOCSYNC_HOME when
 * set, else the folder Electron would use for this app, so that all hosts see the same store.
 */
export function dataHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.DOCSYNC_HOME) return env.DOCSYNC_HOME;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
}
