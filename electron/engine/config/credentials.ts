/**
 * Where the token lives: the OS keychain (keytar), or the engine's memory for a session-only
 * token. Never a file, the store, a log or the renderer. Kept behind this small interface so the
 * keychain library can be swapped (keytar is archived upstream; @napi-rs/keyring is the fallback).
 */
export interface CredentialStore {
  readonly kind: 'keychain' | 'memory';
  get(url: string, account: string): Promise<string | null>;
  set(url: string, account: string, token: string): Promise<void>;
  delete(url: string, account: string): Promise<boolean>;
  /** Why this store cannot be used in this installation (checked without touching any entry), or null. */
  unavailable(): Promise<string | null>;
}

/** The keychain cannot be used here; the message says why in one line. */
export class KeychainUnavailableError extends Error {
  override name = 'KeychainUnavailableError';
}

const SERVICE = 'DocSync';
/** One keychain entry per service URL and account. */
const key = (url: string, account: string): string => `${url.replace(/\/+$/, '')}#${account}`;

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

/**
 * keytar is an optional dependency: it compiles from source against libsecret, which a fresh Linux
 * machine lacks, and set-up must not fail for it. A specifier in a variable keeps tsc and the bundler
 * from resolving it at build time (the local Keytar interface types it).
 */
const KEYTAR = 'keytar';

function explain(err: unknown): KeychainUnavailableError {
  const msg = err instanceof Error ? err.message : String(err);
  if ((err as { code?: string } | null)?.code === 'ERR_MODULE_NOT_FOUND' || /Cannot find (package|module) 'keytar'/.test(msg)) {
    return new KeychainUnavailableError('this installation has no keychain support (on Linux, set-up needs the libsecret-1-dev package)');
  }
  if (/D-Bus|DBUS|org\.freedesktop\.secrets|autolaunch|Could not connect/i.test(msg)) {
    return new KeychainUnavailableError(`no keychain available (no Secret Service on D-Bus: ${msg.split('\n')[0]}); use DOCSYNC_TOKEN or a session-only token`);
  }
  return new KeychainUnavailableError(`the keychain failed: ${msg.split('\n')[0]}`);
}

export class KeytarStore implements CredentialStore {
  readonly kind = 'keychain';
  #lib: Promise<Keytar> | undefined;

  /** `moduleName` is for tests: a name that is not installed is an installation without keytar. */
  constructor(private readonly moduleName = KEYTAR) {}

  private lib(): Promise<Keytar> {
    this.#lib ??= (import(this.moduleName) as Promise<unknown>).then(
      (m) => ((m as { default?: Keytar }).default ?? (m as unknown as Keytar)),
      (err: unknown) => {
        throw explain(err);
      },
    );
    return this.#lib;
  }

  private async call<T>(fn: (k: Keytar) => Promise<T>): Promise<T> {
    const k = await this.lib();
    try {
      return await fn(k);
    } catch (err) {
      throw explain(err);
    }
  }

  get(url: string, account: string): Promise<string | null> {
    return this.call((k) => k.getPassword(SERVICE, key(url, account)));
  }

  set(url: string, account: string, token: string): Promise<void> {
    return this.call((k) => k.setPassword(SERVICE, key(url, account), token));
  }

  delete(url: string, account: string): Promise<boolean> {
    return this.call((k) => k.deletePassword(SERVICE, key(url, account)));
  }

  async unavailable(): Promise<string | null> {
    try {
      await this.lib();
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }
}

/** A session-only token: lost when the engine stops, by design. */
export class MemoryStore implements CredentialStore {
  readonly kind = 'memory';
  readonly #tokens = new Map<string, string>();

  async get(url: string, account: string): Promise<string | null> {
    return this.#tokens.get(key(url, account)) ?? null;
  }

  async set(url: string, account: string, token: string): Promise<void> {
    this.#tokens.set(key(url, account), token);
  }

  async delete(url: string, account: string): Promise<boolean> {
    return this.#tokens.delete(key(url, account));
  }

  async unavailable(): Promise<null> {
    return null;
  }
}
