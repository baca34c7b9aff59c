/**
 * A certificate the client refused, looked at so the person can be told why in words: which names
 * it is for, its dates, and whether this computer's clock is the problem. Node's error says only a
 * code (CERT_HAS_EXPIRED); the facts come from a second connection that accepts any certificate,
 * sends no token and no request but a HEAD for the service's clock (its Date header).
 */
import { connect, type PeerCertificate, type SecureContext } from 'node:tls';
import { isIP } from 'node:net';
import type { CertificateFacts } from '../../../shared/ui/messages.js';

export type { CertificateFacts };
export type CertificateProblemKind = CertificateFacts['problem'];

const BY_CODE: Record<string, CertificateProblemKind> = {
  SELF_SIGNED_CERT_IN_CHAIN: 'untrusted',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'untrusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'untrusted',
  UNABLE_TO_GET_ISSUER_CERT: 'untrusted',
  CERT_UNTRUSTED: 'untrusted',
  CERT_SIGNATURE_FAILURE: 'untrusted',
  INVALID_CA: 'untrusted',
  CERT_HAS_EXPIRED: 'expired',
  CERT_NOT_YET_VALID: 'clock',
  ERR_TLS_CERT_ALTNAME_INVALID: 'name',
};

/** The kind of certificate problem a Node/OpenSSL error code means, or undefined for any other failure. */
export const certificateProblemOf = (code: string | undefined): CertificateProblemKind | undefined => (code ? BY_CODE[code] : undefined);

/** A clock this far from the service's is "far off": certificates are checked against it. */
export const CLOCK_FAR_MS = 60 * 60_000;

function namesOf(c: PeerCertificate): string[] {
  const alt = (c.subjectaltname ?? '').split(',').map((s) => s.trim()).filter(Boolean)
    .map((s) => s.replace(/^(DNS|IP Address):/, ''));
  if (alt.length) return alt;
  const cn = c.subject?.CN;
  return cn ? [Array.isArray(cn) ? cn.join(', ') : cn] : [];
}

interface Seen {
  cert: PeerCertificate | null;
  date: Date | null;
}

/** Connects without checking the certificate, reads it and the Date of a HEAD answer; null fields when not seen. */
function look(url: URL, secureContext: SecureContext | undefined, timeoutMs: number): Promise<Seen> {
  return new Promise<Seen>((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const seen: Seen = { cert: null, date: null };
    const s = connect({
      host, port: Number(url.port || 443), rejectUnauthorized: false,
      ...(isIP(host) ? {} : { servername: host }),
      ...(secureContext ? { secureContext } : {}),
    });
    let text = '';
    const done = (): void => {
      clearTimeout(timer);
      s.destroy();
      resolve(seen);
    };
    const timer = setTimeout(done, timeoutMs);
    s.once('secureConnect', () => {
      const c = s.getPeerCertificate();
      seen.cert = c && Object.keys(c).length ? c : null;
      s.write(`HEAD / HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\nUser-Agent: docsync-certificate-check\r\n\r\n`);
    });
    s.on('data', (b: Buffer) => {
      text += b.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0 && text.length < 16_384) return;
      const m = /^date:\s*(.+)$/im.exec(text.slice(0, end < 0 ? undefined : end));
      const d = m?.[1] ? new Date(m[1].trim()) : null;
      if (d && !Number.isNaN(d.getTime())) seen.date = d;
      done();
    });
    s.on('error', done);
    s.on('close', done);
  });
}

/** The facts of a certificate failure with `code` at `baseUrl`; what cannot be seen stays out. */
export async function certificateFacts(baseUrl: string, code: string, secureContext: SecureContext | undefined, timeoutMs = 3000, now = Date.now()): Promise<CertificateFacts> {
  const url = new URL(baseUrl);
  let problem = certificateProblemOf(code) ?? 'untrusted';
  const facts: CertificateFacts = { problem, host: url.hostname.replace(/^\[|\]$/g, '') };
  const { cert, date } = await look(url, secureContext, timeoutMs);
  if (cert) {
    facts.names = namesOf(cert);
    facts.validFrom = new Date(cert.valid_from).toISOString();
    facts.validTo = new Date(cert.valid_to).toISOString();
    const issuer = cert.issuer?.CN ?? cert.issuer?.O;
    if (issuer) facts.issuer = Array.isArray(issuer) ? issuer.join(', ') : issuer;
  }
  if (date) facts.clockOffMs = now - date.getTime();
  // An expired (or not yet valid) certificate whose dates hold the service's own time: the clock here is wrong.
  if ((problem === 'expired' || problem === 'clock') && date && cert) {
    const serviceNow = date.getTime();
    const inDates = serviceNow >= new Date(cert.valid_from).getTime() && serviceNow <= new Date(cert.valid_to).getTime();
    if (inDates && Math.abs(facts.clockOffMs ?? 0) > CLOCK_FAR_MS) problem = 'clock';
  }
  facts.problem = problem;
  return facts;
}
