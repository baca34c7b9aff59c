/**
 * The certificates the client trusts: Node's bundled roots, the OS's trust store where the runtime
 * can read it, the file in NODE_EXTRA_CA_CERTS, and the connection's own CA file.
 *
 * Node 22.15 and later (Electron 41's Node is 24) read the OS store with tls.getCACertificates('system'):
 * there it is always trusted, as a browser would. Node 20 cannot read it (only the process-wide
 * `--use-openssl-ca` flag reaches OpenSSL's store), so the CLI on Node 20 trusts the bundled roots,
 * NODE_EXTRA_CA_CERTS and the connection's CA file.
 */
import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';

type CaSource = 'default' | 'system' | 'bundled' | 'extra';
const getCACertificates = (tls as { getCACertificates?: (type?: CaSource) => string[] }).getCACertificates;

/** Whether this runtime can read the OS's trust store. */
export const systemStoreReadable = typeof getCACertificates === 'function';

function systemCertificates(): string[] {
  try {
    return getCACertificates?.('system') ?? [];
  } catch {
    // An unreadable store trusts nothing more; the bundled roots still apply.
    return [];
  }
}

/** NODE_EXTRA_CA_CERTS as Node 20 read it at start (it adds them only where no `ca` is given). */
function envExtraCertificates(): string[] {
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (!file) return [];
  try {
    return splitPem(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates in a PEM text, each as its own PEM block. */
export function splitPem(text: string): string[] {
  return text.match(PEM_CERT) ?? [];
}

function normalise(ca: string | string[] | undefined): string[] {
  if (ca === undefined) return [];
  return (Array.isArray(ca) ? ca : [ca]).flatMap(splitPem);
}

/**
 * The full list to give a TLS client as `ca` (which replaces Node's defaults), or undefined when
 * Node's defaults already are the whole trust (Node 20 with no CA of the connection's own).
 */
export function trustedCertificates(extra: string | string[] | undefined): string[] | undefined {
  const own = normalise(extra);
  if (getCACertificates) return [...new Set([...getCACertificates('default'), ...systemCertificates(), ...own])];
  if (own.length === 0) return undefined;
  return [...new Set([...tls.rootCertificates, ...envExtraCertificates(), ...own])];
}
