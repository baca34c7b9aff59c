/**
 * Certificates the TLS tests make (no openssl): one CA and, issued by it, a good certificate for
 * 127.0.0.1 and localhost, an expired one, one for another name and one not valid yet; also a
 * self-signed one and a second CA nobody trusts. Written as PEM files in a temporary folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issue, makeCa, selfSigned, type Issued } from '../../sandbox/certificates.js';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../sandbox/index.js';
import { FAST } from './sandbox.js';

const DAY = 86_400_000;
export const LOCAL_NAMES = ['127.0.0.1', 'localhost'];

export type CertKind = 'good' | 'expired' | 'otherName' | 'notYetValid' | 'selfSigned' | 'otherCa';

export interface PemFiles {
  cert: string;
  key: string;
}

export interface TestCerts {
  dir: string;
  /** The CA's certificate file: what a client is told to trust. */
  caFile: string;
  caPem: string;
  /** When the expired one ended (its notAfter). */
  expiredOn: Date;
  /** When the not-yet-valid one begins. */
  validFrom: Date;
  files: Record<CertKind, PemFiles>;
  remove(): void;
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'docsync-certs-'));
  const ca = makeCa('DocSync Test Company CA');
  const expiredOn = new Date(Math.floor((Date.now() - 3 * DAY) / 60_000) * 60_000);
  const validFrom = new Date(Math.floor((Date.now() + 30 * DAY) / 60_000) * 60_000);
  const made: Record<CertKind, Issued> = {
    good: issue(ca, { names: LOCAL_NAMES }),
    expired: issue(ca, { names: LOCAL_NAMES, notBefore: new Date(Date.now() - 400 * DAY), notAfter: expiredOn }),
    otherName: issue(ca, { names: ['service.example', 'docs.service.example'] }),
    notYetValid: issue(ca, { names: LOCAL_NAMES, notBefore: validFrom, notAfter: new Date(validFrom.getTime() + 365 * DAY) }),
    selfSigned: selfSigned(LOCAL_NAMES),
    otherCa: issue(makeCa('Some Other CA'), { names: LOCAL_NAMES }),
  };
  const files = {} as Record<CertKind, PemFiles>;
  for (const [kind, p] of Object.entries(made) as [CertKind, Issued][]) {
    files[kind] = { cert: join(dir, `${kind}.pem`), key: join(dir, `${kind}-key.pem`) };
    writeFileSync(files[kind].cert, p.cert);
    writeFileSync(files[kind].key, p.key, { mode: 0o600 });
  }
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);
  return { dir, caFile, caPem: ca.cert, expiredOn, validFrom, files, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A sandbox over HTTPS with one of the test's certificates (test delays). */
export function tlsSandbox(certs: TestCerts, kind: CertKind, opts: Partial<SandboxOptions> = {}): Promise<RunningSandbox> {
  const f = certs.files[kind];
  return startSandbox({ ...FAST, ...opts, tls: { certFile: f.cert, keyFile: f.key } });
}
