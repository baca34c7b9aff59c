/**
 * What the shell uses of the engine's AppCore (electron/engine/app/core.ts): calls checked by the
 * core, pushed events, and the status for the tray. Structural, so the shell's modules name only
 * what they need.
 */
import type { EventEmitter } from 'node:events';
import type { Events } from '../../shared/ui/contract.js';
import type { ConnectionState, StatusView } from '../../shared/ui/views.js';

export type CoreEvents = { [E in keyof Events]: [Events[E]] };

export interface CorePort {
  call(channel: string, raw: unknown): Promise<unknown>;
  readonly events: Pick<EventEmitter<CoreEvents>, 'on' | 'off'>;
  status(): StatusView;
  readonly connection: ConnectionState;
}
