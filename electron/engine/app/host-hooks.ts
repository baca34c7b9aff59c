/**
 * What the UI's engine side needs from the process hosting it. The Electron shell passes OS
 * integrations (reveal in folder, open with the default app, a folder picker); the headless host
 * passes none and the UI falls back (shows the path, renders in the page, asks for a typed path).
 */
import type { CredentialStore } from '../config/credentials.js';
import type { EngineOptions } from '../engine.js';

export interface SandboxHandle {
  url: string;
  /** Token the built-in sandbox accepts for a full-access user. */
  token: string;
  /** Its deployments, offered in the pickers while signed in to it. */
  deployments: string[];
  close(): Promise<void>;
}

export interface HostHooks {
  host: 'electron' | 'headless';
  /** Data home: store, downloads, staged drops, connection settings. */
  home: string;
  version: string;
  /** The keychain; when it fails, the UI offers a session-only token kept in memory. */
  credentials: CredentialStore;
  /** Starts the built-in sandbox (keeping its state under home); "Try the sandbox". */
  startSandbox(): Promise<SandboxHandle>;
  /** Shows a file in the OS file manager; false when the host cannot. */
  reveal?(path: string): Promise<boolean>;
  /** Opens a file with the OS default app; false when the host cannot. */
  openPath?(path: string): Promise<boolean>;
  /** Asks for a folder; null when cancelled. */
  pickFolder?(): Promise<string | null>;
  /**
   * Which proxy the system uses for a URL, PAC included, answered as a PAC result ("PROXY host:port",
   * "DIRECT"): the desktop app asks Electron's session. Without it, "from the system" is the environment's.
   */
  resolveProxy?(url: string): Promise<string>;
  /** Environment for DOCSYNC_URL/TOKEN/CONTEXT (defaults to process.env). */
  env?: NodeJS.ProcessEnv;
  /** Engine tuning (poll and retry delays; tests and benchmarks shorten them), how it joins shared folders and its name there. */
  engine?: Pick<EngineOptions, 'poll' | 'retry' | 'share' | 'agentName'>;
  /** `--bwlimit SPEC` of `docsync serve`: overrides DOCSYNC_BWLIMIT and the saved setting for this process. */
  bwlimit?: string;
  /** Connection probe periods in ms; tests shorten them. */
  probeMs?: { online: number; offline: number };
}
