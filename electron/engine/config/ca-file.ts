/**
 * A connection's own CA certificates (a company CA that re-signs connections, a private service's CA):
 * read from a PEM file the person names, and kept in the data home as a private file (0600), named in
 * connection.json. Only certificates: a key or anything else in the file is left out.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PRIVATE_FILE } from './private-files.js';

/** The kept copy's name in the data home. */
export const CONNECTION_CA_FILE = 'connection-ca.pem';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM text, checked; throws in words when there is none or one is damaged. */
export function caCertificates(text: string, from: string): string {
  const blocks = text.match(PEM_CERT) ?? [];
  if (blocks.length === 0) throw new Error(`${from} holds no certificate: give the CA certificate in PEM form (a text file starting "-----BEGIN CERTIFICATE-----")`);
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch {
      throw new Error(`${from} holds a damaged certificate: give the CA certificate in PEM form`);
    }
  }
  return `${blocks.join('\n')}\n`;
}

/** A CA file as the person named it (login --ca-file, DOCSYNC_CA_FILE). */
export function readCaFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`cannot read the CA file ${path}: ${code === 'ENOENT' ? 'there is no such file' : code === 'EACCES' ? 'not allowed to read it' : (err as Error).message}`);
  }
  return caCertificates(text, path);
}

/** Keeps `pem` in the data home (null removes it); the name to put in connection.json. */
export async function keepConnectionCa(home: string, pem: string | null): Promise<string | undefined> {
  const path = join(home, CONNECTION_CA_FILE);
  if (pem === null) {
    await rm(path, { force: true });
    return undefined;
  }
  await mkdir(home, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, pem, { mode: PRIVATE_FILE });
  await rename(tmp, path);
  return CONNECTION_CA_FILE;
}

/** The kept CA named in connection.json; a missing or damaged copy is an error in words. */
export async function loadConnectionCa(home: string, name: string): Promise<string> {
  // Only a name in the data home: connection.json never points elsewhere.
  if (name.includes('/') || name.includes('\\') || name.startsWith('.')) throw new Error(`connection.json names "${name}" as its CA file: run "docsync login" again`);
  const path = join(home, name);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new Error(`the connection's CA certificate (${path}) is missing: run "docsync login --ca-file FILE" again`);
  }
  return caCertificates(text, path);
}
