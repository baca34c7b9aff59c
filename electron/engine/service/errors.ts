/** The one error type of the service client. */
import type { CertificateFacts } from '../../../shared/ui/messages.js';
import type { ProxyFacts } from '../../../shared/ui/proxy-problem.js';

export type ErrorKind =
  /** The service answered with a status that is not a success of this operation. */
  | 'http'
  /** The connection failed (refused, reset, closed early). */
  | 'network'
  /** A connect, response or idle timeout, or a waiter's overall timeout. */
  | 'timeout'
  /** A success status whose body is not what the operation returns (not JSON, wrong shape). */
  | 'bad-response'
  /** A non-idempotent call may or may not have taken effect, and no record of it was found (see http.ts). */
  | 'ambiguous'
  /** The local file changed while it was being uploaded; nothing torn was committed. */
  | 'file-changed'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** The service's TLS certificate was refused (not trusted, expired, for another name, or this clock is off): see `certificate`. */
  | 'certificate'
  /** The proxy failed DocSync (cannot be reached, refused the credentials or the tunnel, cannot reach the service): see `proxy`. */
  | 'proxy';

export interface ServiceErrorInit {
  kind: ErrorKind;
  operation: string;
  message: string;
  status?: number;
  retryable?: boolean;
  code?: string;
  attempts?: number;
  /** The failing call may have taken effect (a reset or timeout after the request was sent). */
  mayHaveTakenEffect?: boolean;
  certificate?: CertificateFacts;
  proxy?: ProxyFacts;
}

/**
 * `message` is the service's own message (the body's `message`, or `msg` on v1) for 'http'
 * errors, and a plain explanation otherwise. The token never appears in it: messages are
 * passed through the transport's redaction, and no request options are kept on the error.
 */
export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly kind: ErrorKind;
  readonly operation: string;
  readonly status: number | undefined;
  /** Whether the same call may succeed if made again later. */
  readonly retryable: boolean;
  /** Node/system error code of a network failure (ECONNRESET, ETIMEDOUT, ...). */
  readonly code: string | undefined;
  /** Attempts made, retries included. */
  readonly attempts: number;
  readonly mayHaveTakenEffect: boolean;
  /** What is known of a refused certificate (kind 'certificate'). */
  readonly certificate: CertificateFacts | undefined;
  /** What went wrong at the proxy (kind 'proxy'). */
  readonly proxy: ProxyFacts | undefined;

  constructor(init: ServiceErrorInit) {
    super(init.message);
    this.kind = init.kind;
    this.operation = init.operation;
    this.status = init.status;
    this.retryable = init.retryable ?? false;
    this.code = init.code;
    this.attempts = init.attempts ?? 1;
    this.mayHaveTakenEffect = init.mayHaveTakenEffect ?? false;
    this.certificate = init.certificate;
    this.proxy = init.proxy;
  }

  /** One line with everything: operation, kind, status, message. */
  describe(): string {
    const status = this.status === undefined ? '' : ` ${this.status}`;
    const code = this.code ? ` ${this.code}` : '';
    return `${this.operation} failed (${this.kind}${status}${code}${this.retryable ? ', retryable' : ''}): ${this.message}`;
  }

  override toString(): string {
    return `ServiceError: ${this.describe()}`;
  }
}

export const isServiceError = (e: unknown, kind?: ErrorKind): e is ServiceError =>
  e instanceof ServiceError && (kind === undefined || e.kind === kind);

/**
 * Thrown by a caller's guard (CallSpec.onAttempt, or a body's last-chunk check) to stop a request
 * before the service could act on it: passed through as it is, never retried.
 */
export class AttemptRefused extends Error {
  override name = 'AttemptRefused';
}

/** Thrown inside upload streams when the file being read no longer matches what was checked. */
export class FileChangedError extends Error {
  override name = 'FileChangedError';
}

/** Replaces every occurrence of a secret in a text. */
export function redact(text: string, secret: string): string {
  return secret ? text.split(secret).join('***') : text;
}
