/**
 * What a person reads about problems and outcomes: one sentence in their words, with the technical
 * detail kept beside it (a details line, the log), never thrown away. Pure: used by the engine when
 * it records a file's problem or announces something, and by the UI for rows stored in older words.
 */
import { proxyProblem, type ProxyFacts } from './proxy-problem.js';

/** A stored problem: its first line is what a person reads, the lines after it the detail. */
export interface Problem {
  summary: string;
  /** The same, short enough for a table row ("Could not read: a damaged PDF (7 of 7 fields)"). */
  short: string;
  detail: string | null;
}

/** What the service said it could not do with a file, as a short reason ("not a PDF or text"). */
export function readReason(msg: string): string {
  const m = msg.trim();
  const rules: [RegExp, string][] = [
    [/^unsupported file: not a PDF, an image \(PNG, JPEG, TIFF\) or UTF-8 text/i, 'not a PDF, an image or text'],
    // The wording of sandboxes before they read images, still in stored results.
    [/^unsupported file: not a PDF and not UTF-8 text/i, 'not a PDF or text'],
    [/^no text layer/i, 'a scanned PDF without text'],
    [/^PDF is encrypted and no matching password/i, 'a password-protected PDF, and no password was given'],
    [/^PDF is encrypted and the password .* is incorrect/i, 'a password-protected PDF, and its password is wrong'],
    [/^file is not a readable PDF/i, 'a damaged PDF'],
    [/^file too large/i, 'too large'],
    [/^empty file/i, 'an empty file'],
    [/^unreadable image/i, 'a damaged image'],
    [/^OCR failed/i, 'a scan that could not be read'],
    [/^no text: OCR found no/i, 'a blank or unreadable scan'],
    [/^no text: /i, 'no text in it'],
  ];
  for (const [re, words] of rules) if (re.test(m)) return words;
  return m || 'no reason given';
}

/**
 * A file whose fields came back as errors: "The service could not read this file: not a PDF or text
 * (7 of 7 fields failed)", then one detail line per failed field as the service said it.
 */
export function fieldFailures(failed: { name: string; errorMsg: string | null }[], total: number): string | null {
  if (failed.length === 0) return null;
  const reasons = [...new Set(failed.map((f) => readReason(f.errorMsg ?? '')))];
  const count = `(${failed.length} of ${Math.max(total, failed.length)} field${total === 1 ? '' : 's'} failed)`;
  const summary = failed.length === total && reasons.length === 1
    ? `The service could not read this file: ${reasons[0]} ${count}`
    : `The service could not extract every field: ${reasons.length === 1 ? reasons[0] : `${reasons.length} different problems`} ${count}`;
  return [summary, ...failed.map((f) => `${f.name}: ${f.errorMsg ?? 'ERROR'}`)].join('\n');
}

const OLD_FIELDS_HEAD = 'the service could not extract every field:';

/** A file's stored problem split into what the row says and what its details say. */
export function fileProblem(error: string): Problem {
  const [first = '', ...rest] = error.split('\n');
  // Stored by earlier versions: a heading, then "field: message" per field (the total is not known).
  if (first.trim() === OLD_FIELDS_HEAD && rest.length > 0) {
    const failed = rest.map((l) => {
      const i = l.indexOf(': ');
      return i < 0 ? { name: l, errorMsg: null } : { name: l.slice(0, i), errorMsg: l.slice(i + 2) };
    });
    const reasons = [...new Set(failed.map((f) => readReason(f.errorMsg ?? '')))];
    const n = `${failed.length} field${failed.length === 1 ? '' : 's'}`;
    if (reasons.length === 1) {
      return { summary: `The service could not read this file: ${reasons[0]} (${n} failed)`, short: `Could not read: ${reasons[0]} (${n})`, detail: rest.join('\n') };
    }
    return { summary: `The service could not extract every field: ${reasons.length} different problems (${n} failed)`, short: `${n} failed`, detail: rest.join('\n') };
  }
  const read = /^The service could not read this file: (.*) \((\d+ of \d+) fields? failed\)$/.exec(first);
  const some = /^The service could not extract every field: .* \((\d+ of \d+ fields?) failed\)$/.exec(first);
  const short = read ? `Could not read: ${read[1]} (${read[2]} fields)` : some ? `${some[1]} failed` : sentence(first);
  return { summary: sentence(first), short, detail: rest.length ? rest.join('\n') : null };
}

/** What is known of a certificate the client refused (electron/engine/service/certificate.ts finds it). */
export interface CertificateFacts {
  problem: 'untrusted' | 'expired' | 'name' | 'clock';
  /** The host asked for. */
  host: string;
  /** The names the certificate is for. */
  names?: string[];
  /** ISO dates. */
  validFrom?: string;
  validTo?: string;
  issuer?: string;
  /** This computer's clock minus the service's, when the service said its time. */
  clockOffMs?: number;
}

/** The parts of a service client error a message needs (ServiceError has them). */
export interface ServiceProblemLike {
  kind: string;
  status?: number | undefined;
  code?: string | undefined;
  message: string;
  certificate?: CertificateFacts | undefined;
  proxy?: ProxyFacts | undefined;
}

/** Why a connection failed, by its system code. */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'nothing answers at its address',
  ENOTFOUND: 'its address is not known',
  EAI_AGAIN: 'its address cannot be looked up',
  ECONNRESET: 'the connection was cut',
  EHOSTUNREACH: 'there is no route to it',
  ENETUNREACH: 'there is no network',
  ETIMEDOUT: 'it did not answer in time',
};

/** Why the service is offline, as the end of "HOST cannot be reached: ...". */
export function offlineReason(e: ServiceProblemLike): string {
  if (e.kind === 'network') return (e.code && NETWORK[e.code]) || 'the connection failed';
  if (e.kind === 'timeout') return 'it did not answer in time';
  if (e.kind === 'http' && (e.status ?? 0) >= 500) return 'it answers with errors';
  return serviceProblem(e);
}

/**
 * What the person can do, where the host has its own way (the app points at a screen, the command
 * line at a command); without them the sentence says what DocSync's caller adds after it.
 */
export interface ServiceHints {
  /** The service as the sentence names it (the command line names its address); default "the service". */
  service?: string;
  /** After a refused token; default "sign in again". */
  signIn?: string;
  /** After a refusal of access (quota, trial, permission). */
  access?: string;
  /** After an unreachable service. */
  reach?: string;
  /** How to add a CA: what follows "add its CA with" (the CLI's flag, the app's setting). */
  caFile?: string;
  /** Where the proxy and its credentials are set. */
  proxySetting?: string;
}

/** The service's own reason, unless it is only a status line ("HTTP 400 Bad Request"), which says nothing more. */
const saidByService = (msg: string): string | null => (/^HTTP \d{3}\b/.test(msg.trim()) || !msg.trim() ? null : msg.trim());
const then = (hint: string | undefined): string => (hint ? `: ${hint}` : '');

/**
 * What went wrong talking to the service, in a person's words: what happened, then what they can
 * do (the hints). No operation names, status codes or system error codes: those stay in the detail
 * (ServiceError.describe). The one wording of service errors for the app, the engine and the CLI.
 */
export function serviceProblem(e: ServiceProblemLike, hints: ServiceHints = {}): string {
  const svc = hints.service ?? 'the service';
  switch (e.kind) {
    case 'network':
    case 'timeout':
      return `${svc} cannot be reached: ${offlineReason(e)}${hints.reach ? `; ${hints.reach}` : ''}`;
    case 'ambiguous':
      return 'the connection broke while the service was asked to do something, and it is not known whether it did';
    case 'file-changed':
      return 'the file changed while it was being uploaded';
    case 'aborted':
      return 'stopped';
    case 'bad-response':
      return `${svc} sent an answer DocSync does not understand`;
    case 'certificate':
      return certificateProblem(e, svc, hints);
    case 'proxy':
      return e.proxy ? proxyProblem(e.proxy, e.code, hints) : e.message;
    case 'http': {
      const s = e.status ?? 0;
      const said = saidByService(e.message);
      // The service's words: 401 is a wrong token or context, or no permission; 403 a spent quota or an ended trial.
      if (s === 401) return `${svc} did not accept the sign-in (the token may be wrong or expired)${then(hints.signIn ?? 'sign in again')}`;
      if (s === 403) return `${svc} refused access${said ? ` ("${said}")` : ''}; the account's quota or trial may be used up${then(hints.access)}`;
      if (s === 429) return `${svc} is busy`;
      if (s >= 500) return `${svc} had a problem on its side`;
      return `${svc} refused the request: ${said ?? 'it gave no reason'}`;
    }
    default:
      return e.message;
  }
}

/** A moment as "2026-11-28 14:05 UTC": the same on every machine, whatever its locale. */
const utc = (iso: string | number): string => `${new Date(iso).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

const CERT_CODE_PROBLEM: Record<string, CertificateFacts['problem']> = {
  CERT_HAS_EXPIRED: 'expired', CERT_NOT_YET_VALID: 'clock', ERR_TLS_CERT_ALTNAME_INVALID: 'name',
};

/** Why the service's certificate was refused, and what helps; never "cannot be reached" (the service did answer). */
function certificateProblem(e: ServiceProblemLike, svc: string, hints: ServiceHints): string {
  const c = e.certificate;
  const problem = c?.problem ?? CERT_CODE_PROBLEM[e.code ?? ''] ?? 'untrusted';
  const cert = `the certificate of ${svc}`;
  switch (problem) {
    case 'expired':
      return `${cert} expired${c?.validTo ? ` on ${utc(c.validTo)}` : ''}: whoever runs the service must renew it (if this computer's clock is wrong, set it right)`;
    case 'name':
      return `${cert} is issued for ${c?.names?.length ? c.names.join(', ') : 'other names'}, not for ${c?.host ?? 'the address given'}: check the address, or ask whoever runs the service`;
    case 'clock': {
      const off = c?.clockOffMs;
      const by = off !== undefined && Math.abs(off) >= 60_000 ? ` (${durationWords(Math.abs(off))} ${off > 0 ? 'ahead of' : 'behind'} the service's)` : '';
      const dates = c?.validFrom && c.validTo ? `; the certificate is valid from ${utc(c.validFrom)} to ${utc(c.validTo)}` : '';
      return `this computer's clock seems wrong${by}: it says ${utc(Date.now())}${dates}. Set the clock right, then try again`;
    }
    default:
      return `${cert} is not trusted${c?.issuer ? ` (issued by "${c.issuer}")` : ''}: your company's network may re-sign connections; add its CA with ${hints.caFile ?? 'the connection\'s CA certificate setting'}`;
  }
}

/** "3 days", "5 hours", "20 minutes". */
function durationWords(ms: number): string {
  const [n, unit] = ms >= 2 * 86_400_000 ? [Math.round(ms / 86_400_000), 'day'] : ms >= 2 * 3_600_000 ? [Math.round(ms / 3_600_000), 'hour'] : [Math.round(ms / 60_000), 'minute'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/**
 * A file as a person knows it: its name in quotes, with its folder when another file has the same
 * name ("inv-7.pdf" in /scans/march). Never its store id, which means nothing to them.
 */
export function fileNamed(path: string, name: string | null = null, withFolder = false): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  const shown = `"${name ?? path.slice(cut + 1)}"`;
  return withFolder && cut > 0 ? `${shown} in ${path.slice(0, cut)}` : shown;
}

/** A batch that could not go up yet and will be tried again. */
export function retryLater(reason: string, delayMs: number, files: number): string {
  const what = files === 1 ? ' 1 file' : files > 1 ? ` ${files} files` : '';
  return `${capital(reason)}. DocSync will try again${what ? ` to upload${what}` : ''} in ${Math.max(1, Math.round(delayMs / 1000))} s.`;
}

/** A run's outcome by its files: "6 files done", "4 of 6 done, 2 failed". */
/** A run as a person knows it: by when it was made, not its service id ("Run of Nov 24, 11:02 PM"). */
export function runNamed(createdMs: number): string {
  return `Run of ${new Date(createdMs).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' })}`;
}

export function runOutcome(c: { files: number; done: number; failed: number }): string {
  if (c.files === 0) return 'no files';
  if (c.failed === 0 && c.done === c.files) return `${c.files} file${c.files === 1 ? '' : 's'} done`;
  const parts = [`${c.done} of ${c.files} done`];
  if (c.failed) parts.push(`${c.failed} failed`);
  const rest = c.files - c.done - c.failed;
  if (rest > 0) parts.push(`${rest} not finished`);
  return parts.join(', ');
}

/** "1 file", "6 files": never "file(s)". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

const capital = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** One readable sentence: capital first letter. */
export function sentence(s: string): string {
  return capital(s.trim());
}
