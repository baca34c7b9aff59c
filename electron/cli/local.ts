/** The data home and the local store: all that the offline commands need (kept light to load). */
import { join } from 'node:path';
import { dataHome } from '../engine/config/paths.js';
import { tightenDataHome, tightenedNotice } from '../engine/config/private-files.js';
import { openStore, STORE_FILE, type Store } from '../engine/store/index.js';

export { dataHome };

/** Opens (creating when needed) the store in the data home. */
export function openLocalStore(home = dataHome()): Store {
  try {
    const tightened = tightenDataHome(home);
    if (tightened) console.error(`note: ${tightenedNotice(home, tightened)}`);
    return openStore(join(home, STORE_FILE));
  } catch (err) {
    throw new Error(`cannot open the local store in ${home}: ${(err as Error).message}`);
  }
}
