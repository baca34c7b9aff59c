/**
 * The few file operations the share protocol needs on the service's filesystem (spec 4.8), and
 * their implementation over the ServiceClient. Every call is counted by kind (`calls()`), for the
 * benchmark's calls per file.
 */
import type { ServiceClient } from '../service/index.js';
import { isServiceError } from '../service/index.js';

export interface ShareFiles {
  /**
   * PUT with `If-None-Match: *`: 'created' for exactly one caller, 'exists' for the others.
   * `guard` runs right before each attempt is sent; its throw stops the call (nothing sent).
   */
  create(path: string, data: Uint8Array, guard?: () => void): Promise<'created' | 'exists'>;
  /** PUT without condition; `guard` as for create. */
  overwrite(path: string, data: Uint8Array, guard?: () => void): Promise<void>;
  /** GET of a file; null when nothing is there. `signal` (reads, HEADs and listings): a look given up. */
  read(path: string, signal?: AbortSignal): Promise<Uint8Array | null>;
  /** HEAD: whether anything is at the path. */
  exists(path: string, signal?: AbortSignal): Promise<boolean>;
  /** Names in a folder; empty when the folder is absent. */
  list(folder: string, signal?: AbortSignal): Promise<string[]>;
  calls(): Record<string, number>;
}

const notFound = (e: unknown): boolean => isServiceError(e, 'http') && e.status === 404;

export function serviceShareFiles(client: ServiceClient): ShareFiles {
  const counts: Record<string, number> = { create: 0, overwrite: 0, read: 0, exists: 0, list: 0 };
  const count = (k: string): void => {
    counts[k] = (counts[k] ?? 0) + 1;
  };

  const read = async (path: string, signal?: AbortSignal): Promise<Uint8Array | null> => {
    count('read');
    try {
      return (await client.readFile(path, signal ? { signal } : {})).data;
    } catch (e) {
      if (notFound(e)) return null;
      throw e;
    }
  };

  return {
    async create(path, data, guard) {
      count('create');
      try {
        // A 412 after a cut-off attempt counts as this call's create only when the bytes there are
        // ours (service/files.ts): two agents' claims are often the same size.
        await client.writeFile(path, data, { ifNoneMatch: true, ...(guard ? { onAttempt: guard } : {}) });
      } catch (e) {
        if (isServiceError(e, 'http') && e.status === 412) return 'exists';
        throw e;
      }
      return 'created';
    },
    async overwrite(path, data, guard) {
      count('overwrite');
      await client.writeFile(path, data, guard ? { onAttempt: guard } : {});
    },
    read,
    async exists(path, signal) {
      count('exists');
      return (await client.statPath(path, signal ? { signal } : {})) !== null;
    },
    async list(folder, signal) {
      count('list');
      try {
        const { nodes } = await client.listFolder(folder, signal ? { signal } : {});
        return nodes.map((n) => n.name ?? (n.full_path ?? '').split('/').pop() ?? '').filter((n) => n !== '');
      } catch (e) {
        if (notFound(e)) return [];
        throw e;
      }
    },
    calls: () => ({ ...counts }),
  };
}
