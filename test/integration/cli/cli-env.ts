// Runs the built docsync command (out/cli/electron/cli/main.js) as a child process with its own
// data home, building it first when a source is newer than the build.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';

import { MAIN } from '../../helpers/build-cli.js';

export { ROOT, MAIN, buildAllIfNeeded as buildIfNeeded } from '../../helpers/build-cli.js';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  env?: Record<string, string | undefined>;
  /** Another installation's built command (default: this checkout's). */
  main?: string;
}

export interface Cli {
  /** A fresh data home (DOCSYNC_HOME) under a temp root. */
  home: string;
  /** A path under the temp root (not created). */
  dir(name: string): string;
  env: Record<string, string>;
  spawn(args: string[], o?: SpawnOptions): { child: ChildProcessWithoutNullStreams; exit: Promise<Exit> };
  /** Runs to the end; `input` is written to stdin (which is then closed). */
  run(args: string[], o?: SpawnOptions & { input?: string }): Promise<Exit>;
  /** Runs with --json and parses stdout; fails the test on a non-zero exit. */
  json<T = unknown>(args: string[]): Promise<T>;
  close(): Promise<void>;
}

/**
 * An environment for the command: temp DOCSYNC_HOME and HOME, no D-Bus session (so no real
 * keychain is ever touched), and none of the caller's DOCSYNC_* variables.
 */
export async function cliEnv(service?: { url: string; token: string }): Promise<Cli> {
  const root = await mkdtemp(path.join(tmpdir(), 'docsync-cli-'));
  const home = path.join(root, 'home');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: path.join(root, 'user'), DOCSYNC_HOME: home, LANG: 'C.UTF-8' };
  if (service) Object.assign(env, { DOCSYNC_URL: service.url, DOCSYNC_TOKEN: service.token });
  const spawnCli = (args: string[], o: SpawnOptions = {}) => {
    const e: Record<string, string> = { ...env };
    for (const [k, v] of Object.entries(o.env ?? {})) {
      if (v === undefined) delete e[k];
      else e[k] = v;
    }
    const child = spawn(process.execPath, [o.main ?? MAIN, ...args], { cwd: root, env: e });
    lineLog(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exit = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
    return { child, exit };
  };
  const cli: Cli = {
    home,
    dir: (name) => path.join(root, name),
    env,
    spawn: spawnCli,
    async run(args, o = {}) {
      const { child, exit } = spawnCli(args, o);
      child.stdin.end(o.input ?? '');
      return exit;
    },
    async json<T>(args: string[]): Promise<T> {
      const r = await cli.run([...args, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as T;
    },
    async close() {
      await rm(root, { recursive: true, force: true });
    },
  };
  return cli;
}

/** The rule every failing command keeps: exit non-zero, one line `docsync: ...` on stderr, no stack trace. */
export function expectOneLineError(r: Exit, msg: RegExp, code?: number): void {
  if (code === undefined) expect(r.code, r.stdout + r.stderr).not.toBe(0);
  else expect(r.code, r.stdout + r.stderr).toBe(code);
  expect(r.code).not.toBeNull();
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^docsync: /);
  expect(lines[0]).toMatch(msg);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/** Every stdout line of a child, read once; each wait goes on from the line after the last match. */
interface LineLog {
  lines: string[];
  next: number;
  closed: boolean;
  wake: Set<() => void>;
}
const logs = new WeakMap<ChildProcessWithoutNullStreams, LineLog>();

function lineLog(child: ChildProcessWithoutNullStreams): LineLog {
  let log = logs.get(child);
  if (log) return log;
  const made: LineLog = { lines: [], next: 0, closed: false, wake: new Set() };
  const ping = () => made.wake.forEach((f) => f());
  // One reader for the child's life: a reader per wait would lose lines that arrived in the chunk
  // the previous reader consumed (two lines printed together).
  createInterface({ input: child.stdout }).on('line', (line) => (made.lines.push(line), ping()));
  child.once('close', () => ((made.closed = true), ping()));
  logs.set(child, made);
  return made;
}

/**
 * Resolves with the first stdout line matching `re` after the previous match (rejects if the
 * process ends first). Lines printed before the first wait count too.
 */
export function lineMatching(child: ChildProcessWithoutNullStreams, re: RegExp, timeoutMs = 20_000): Promise<string> {
  const log = lineLog(child);
  return new Promise((resolve, reject) => {
    const check = () => {
      for (; log.next < log.lines.length; log.next++) {
        const line = log.lines[log.next]!;
        if (re.test(line)) {
          log.next++;
          return done(() => resolve(line));
        }
      }
      if (log.closed) done(() => reject(new Error(`exited with ${child.exitCode} before printing a line matching ${re}`)));
    };
    const t = setTimeout(() => done(() => reject(new Error(`no line matching ${re} within ${timeoutMs} ms`))), timeoutMs);
    const done = (settle: () => void) => {
      clearTimeout(t);
      log.wake.delete(check);
      settle();
    };
    log.wake.add(check);
    check();
  });
}

/** What a real keychain needs here and is missing (a private D-Bus session, gnome-keyring); empty when both are there. */
export const keychainMissing: string[] = ['dbus-run-session', 'gnome-keyring-daemon'].filter((b) => spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0);

/** The command as a shell sees it, for `inKeychainSession` scripts. */
export const NODE_MAIN = `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)}`;

/**
 * Runs `lines` in one shell inside a private D-Bus session with an unlocked gnome-keyring: a real Secret
 * Service for keytar, gone with the session. Not spawnSync: a sandbox in the test's process must keep answering.
 */
export async function inKeychainSession(cli: Cli, lines: string[], env: Record<string, string> = cli.env): Promise<{ stdout: string; stderr: string }> {
  await mkdir(cli.dir('user/.local/share'), { recursive: true });
  const script = ['echo -n pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null', ...lines].join('\n');
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
    cwd: cli.dir(''), env: { ...env, XDG_DATA_HOME: cli.dir('user/.local/share'), XDG_CACHE_HOME: cli.dir('user/.cache') },
  });
  const r = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (r.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (r.stderr += d.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  return r;
}
