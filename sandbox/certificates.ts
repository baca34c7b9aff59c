/**
 * X.509 certificates for the sandbox's HTTPS (`--tls`) and for tests: a CA, and certificates it
 * issues for given names and dates. node-forge signs; the RSA keys come from Node's crypto (fast,
 * native), so nothing shells out to openssl, which a fresh machine may not have.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

const { pki, md } = forge;

export interface Issued {
  /** The certificate, PEM. */
  cert: string;
  /** Its private key, PEM (PKCS#1). */
  key: string;
}

export interface CertificateRequest {
  /** Names it is valid for: DNS names and IP addresses (subjectAltName). */
  names: string[];
  notBefore?: Date;
  notAfter?: Date;
  commonName?: string;
}

const DAY = 86_400_000;

function newKey(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; pem: string } {
  const { privateKey: pem } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const privateKey = pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  return { privateKey, publicKey: pki.setRsaPublicKey(privateKey.n, privateKey.e), pem };
}

function base(publicKey: forge.pki.rsa.PublicKey, notBefore: Date, notAfter: Date): forge.pki.Certificate {
  const c = pki.createCertificate();
  c.publicKey = publicKey;
  // Positive and unique: a fixed first byte keeps the DER integer positive.
  c.serialNumber = `01${randomBytes(15).toString('hex')}`;
  c.validity.notBefore = notBefore;
  c.validity.notAfter = notAfter;
  return c;
}

/** A CA certificate and key, valid from a day ago for `years`. */
export function makeCa(commonName: string, years = 10): Issued {
  const k = newKey();
  const c = base(k.publicKey, new Date(Date.now() - DAY), new Date(Date.now() + years * 365 * DAY));
  const name = [{ name: 'commonName', value: commonName }];
  c.setSubject(name);
  c.setIssuer(name);
  c.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  c.sign(k.privateKey, md.sha256.create());
  return { cert: pki.certificateToPem(c), key: k.pem };
}

/** A server certificate issued by `ca` for `req.names` (default: valid from a day ago for a year). */
export function issue(ca: Issued, req: CertificateRequest): Issued {
  const caCert = pki.certificateFromPem(ca.cert);
  const caKey = pki.privateKeyFromPem(ca.key);
  const k = newKey();
  const c = base(k.publicKey, req.notBefore ?? new Date(Date.now() - DAY), req.notAfter ?? new Date(Date.now() + 365 * DAY));
  c.setSubject([{ name: 'commonName', value: req.commonName ?? req.names[0] ?? 'sandbox' }]);
  c.setIssuer(caCert.subject.attributes);
  c.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: req.names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  c.sign(caKey, md.sha256.create());
  return { cert: pki.certificateToPem(c), key: k.pem };
}

/** A self-signed server certificate (no CA) for `names`. */
export function selfSigned(names: string[]): Issued {
  const k = newKey();
  const c = base(k.publicKey, new Date(Date.now() - DAY), new Date(Date.now() + 365 * DAY));
  const name = [{ name: 'commonName', value: names[0] ?? 'sandbox' }];
  c.setSubject(name);
  c.setIssuer(name);
  c.setExtensions([{ name: 'subjectAltName', altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) }]);
  c.sign(k.privateKey, md.sha256.create());
  return { cert: pki.certificateToPem(c), key: k.pem };
}

/** When a PEM certificate stops being valid. */
export function notAfterOf(certPem: string): Date {
  return pki.certificateFromPem(certPem).validity.notAfter;
}
