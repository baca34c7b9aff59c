import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliIfNeeded, MAIN, ROOT } from '../../helpers/build-cli.js';

/** Issue section 2: `docsync sandbox` prints exactly `sandbox listening on http://127.0.0.1:PORT` first and runs until SIGTERM. */

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): { child: ChildProcessWithoutNullStreams; exit: Promise<Exit> } {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: { ...process.env, DOCSYNC_DEBUG: '' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, exit };
}

function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (line) => (rl.close(), resolve(line)));
    child.once('close', (code) => reject(new Error(`exited with ${code} before printing a line`)));
  });
}

let dataDir: string;
beforeAll(async () => {
  await buildCliIfNeeded();
  dataDir = await mkdtemp(path.join(tmpdir(), 'docsync-cli-'));
}, 120_000);
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('docsync sandbox', () => {
  it('prints exactly "sandbox listening on http://127.0.0.1:PORT" first, serves that port, and exits 0 on SIGTERM', async () => {
    const { child, exit } = cli(['sandbox', '--port', '0']);
    try {
      const line = await firstLine(child);
      const m = /^sandbox listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(line);
      expect(m, line).not.toBeNull();
      const port = Number(m![1]);
      expect(port).toBeGreaterThan(0);
      expect(port).toBeLessThan(65536);
      const health = await fetch(`http://127.0.0.1:${port}/sandbox/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true, org: 'sandbox-org' });
      const batches = await fetch(`http://127.0.0.1:${port}/v2/batches`, { headers: { Authorization: 'Bearer admin-token' } });
      expect(batches.status).toBe(200);
      child.kill('SIGTERM');
      const done = await exit;
      expect(done).toMatchObject({ code: 0, signal: null });
      expect(done.stderr).toBe('');
      // Without --data it used a fresh temporary folder, named on a later line; remove it.
      const data = /^data: (.+)$/m.exec(done.stdout)?.[1];
      if (data && data.startsWith(tmpdir())) await rm(data, { recursive: true, force: true });
      await expect(fetch(`http://127.0.0.1:${port}/sandbox/health`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('keeps its state in --data and also stops on SIGINT with exit code 0', async () => {
    const { child, exit } = cli(['sandbox', '--port=0', '--data', dataDir, '--ocr-workers', '1']);
    try {
      const port = Number(/:(\d+)$/.exec(await firstLine(child))![1]);
      const health = (await (await fetch(`http://127.0.0.1:${port}/sandbox/health`)).json()) as { ocr: unknown };
      // Workers start with the first scan, not before.
      expect(health.ocr).toEqual({ max_workers: 1, workers: 0, busy: 0 });
      const created = await fetch(`http://127.0.0.1:${port}/v2/batches`, {
        method: 'POST',
        headers: { Authorization: 'Bearer admin-token', 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'from the cli', workspace: 'team' }),
      });
      expect(created.status).toBe(200);
      child.kill('SIGINT');
      expect((await exit).code).toBe(0);
      expect(existsSync(path.join(dataDir, 'sandbox.db'))).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it.each([
    [['sandbox', '--port', '0', '--faults', 'bogus=1'], /faults.*bogus/],
    [['sandbox', '--port', '0', '--no-such-option'], /no-such-option/],
    [['sandbox', '--port', 'eighty'], /port/],
    [['sandbox', '--port'], /port/],
    [['sandbox', '--port', '0', '--ocr-workers', '0'], /--ocr-workers must be an integer >= 1/],
  ])('%j exits 2 with a one-line error on stderr and no stack trace', async (args, msg) => {
    const { exit } = cli(args);
    const done = await exit;
    expect(done.code).toBe(2);
    expect(done.stdout).toBe('');
    const lines = done.stderr.trimEnd().split('\n');
    expect(lines, done.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(msg);
    expect(done.stderr).not.toMatch(/\n\s+at /);
  });
});
