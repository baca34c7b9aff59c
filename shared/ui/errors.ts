/**
 * Error codes that cross the bridge with an error's message, so the UI can act on what an error is
 * (take a notice away once its cause is gone) without reading its wording. Both transports carry
 * the code in the reply envelope: Electron's contextBridge keeps only an Error's message. Pure.
 */

export const ERROR_CODES = [
  /** The request needs a session with the service: the person must sign in (or try the sandbox). */
  'sign-in-needed',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error reply of either transport. */
export interface ErrorReply {
  ok: false;
  error: string;
  code?: ErrorCode;
}

/** An Error with a code, thrown by the engine and rebuilt on the renderer's side. */
export function codedError(message: string, code: ErrorCode | null): Error {
  const e = new Error(message);
  return code ? Object.assign(e, { code }) : e;
}

/** The code an error carries, if it is one of ERROR_CODES. */
export function errorCode(err: unknown): ErrorCode | null {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return (ERROR_CODES as readonly unknown[]).includes(code) ? (code as ErrorCode) : null;
}

/** The reply for an error whose one-line message is `message`. */
export function errorReply(message: string, err: unknown): ErrorReply {
  const code = errorCode(err);
  return code ? { ok: false, error: message, code } : { ok: false, error: message };
}

/** The Error a caller sees for an error reply (its code kept, if it is a known one). */
export const replyError = (r: { error: string; code?: unknown }): Error => codedError(r.error, errorCode(r));
