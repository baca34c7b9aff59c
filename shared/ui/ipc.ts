/**
 * Electron IPC names and the reply envelope, shared by electron/main/ipc.ts and the preload (the
 * two ends must agree and may not import each other). Replies carry the error as a plain one-line
 * message: a handler's thrown Error would reach the page wrapped as "Error invoking remote method".
 */
import type { EventChannel, RequestChannel } from './contract.js';

export const ipcRequestChannel = (c: RequestChannel): string => `docsync:call:${c}`;
export const ipcEventChannel = (e: EventChannel): string => `docsync:event:${e}`;

export type IpcReply<T> = { ok: true; result: T } | { ok: false; error: string };
