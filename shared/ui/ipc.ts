/**
 * Electron IPC names and the reply envelope, shared by electron/main/ipc.ts and the preload (the
 * two ends must agree and may not import each other). Replies carry the error as a plain one-line
 * message and its code (shared/ui/errors.ts): a handler's thrown Error would reach the page wrapped as
 * "Error invoking remote method", and without its code.
 */
import type { EventChannel, RequestChannel } from './contract.js';
import type { ErrorReply } from './errors.js';

export const ipcRequestChannel = (c: RequestChannel): string => `docsync:call:${c}`;
export const ipcEventChannel = (e: EventChannel): string => `docsync:event:${e}`;

export type IpcReply<T> = { ok: true; result: T } | ErrorReply;
