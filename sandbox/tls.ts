/**
 * The sandbox's HTTPS credentials: a certificate and key given as files (`--tls-cert`, `--tls-key`),
 * or, with `--tls`, a CA of its own and a certificate it issues for 127.0.0.1 and localhost, kept in
 * `<data>/tls/` so that a client told to trust the CA once goes on trusting it across restarts.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { issue, makeCa, type Issued } from './certificates.js';

export type TlsOption = { certFile: string; keyFile: string } | 'self';

export interface ServerTls {
  cert: string;
  key: string;
  /** The CA file a client must trust (only for 'self'). */
  caFile?: string;
}

const DAY = 86_400_000;

function readPair(certFile: string, keyFile: string): Issued | null {
  if (!existsSync(certFile) || !existsSync(keyFile)) return null;
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

function writePair(p: Issued, certFile: string, keyFile: string): void {
  writeFileSync(certFile, p.cert, { mode: 0o644 });
  writeFileSync(keyFile, p.key, { mode: 0o600 });
}

/** The CA and server certificate of `--tls`, made once and made again only when the server's is near its end. */
function selfTls(dataDir: string): ServerTls {
  const dir = join(dataDir, 'tls');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, 'ca.pem');
  const caKeyFile = join(dir, 'ca-key.pem');
  let ca = readPair(caFile, caKeyFile);
  if (!ca) {
    ca = makeCa(`DocSync sandbox CA (${hostname()})`);
    writePair(ca, caFile, caKeyFile);
  }
  const certFile = join(dir, 'server.pem');
  const keyFile = join(dir, 'server-key.pem');
  let server = readPair(certFile, keyFile);
  const usable = (s: Issued): boolean => {
    const x = new X509Certificate(s.cert);
    return x.checkIssued(new X509Certificate((ca as Issued).cert)) && new Date(x.validTo).getTime() > Date.now() + DAY;
  };
  if (!server || !usable(server)) {
    server = issue(ca, { names: ['127.0.0.1', 'localhost', '::1'], commonName: 'localhost' });
    writePair(server, certFile, keyFile);
  }
  return { ...server, caFile };
}

export function serverTls(o: TlsOption, dataDir: string): ServerTls {
  if (o === 'self') return selfTls(dataDir);
  const read = (f: string, what: string): string => {
    try {
      return readFileSync(f, 'utf8');
    } catch (err) {
      throw new Error(`sandbox: cannot read the ${what} ${f}: ${(err as Error).message}`);
    }
  };
  return { cert: read(o.certFile, 'certificate'), key: read(o.keyFile, 'key') };
}
