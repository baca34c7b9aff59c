/**
 * The Share the engine tests use. Until the share protocol is merged this is the in-memory one
 * (memory-share.ts); one registry per test file run, like one service.
 */
import type { ShareFactory } from '../../electron/engine/pipeline/shared-folder.js';
import { MemoryShares } from './memory-share.js';

export function shareFactory(): ShareFactory {
  registry ??= new MemoryShares();
  const r = registry;
  return (o) => r.factory(o.settings.leaseMs)(o);
}
let registry: MemoryShares | undefined;
export const resetShares = (): void => {
  registry = undefined;
};
