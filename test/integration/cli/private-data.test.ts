// Issue 26, items 1, 2 and 4, through a real `docsync serve` under umask 022: everything in the data
// home is its owner's alone (WAL and SHM included, the built-in sandbox's state, downloaded PDFs);
// another account reads none of it; folders the user chose keep the user's umask; a data home left
// open by an older version is tightened and said once; a file name cannot forge a line of serve's output.
import { spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileRow } from '../../../electron/engine/store/index.js';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { invoicePdf } from '../../helpers/pdf-fixtures.js';
import { sandbox } from '../../helpers/sandbox.js';
import { runAs } from '../../helpers/unprivileged.js';
import { buildIfNeeded, cliEnv, lineMatching, type Cli } from './cli-env.js';

const FOLDER_FLAGS = ['--deployment', 'sandbox-invoices', '--stability', '150', '--quiet', '300', '--rescan', '1000'];
const invoice = (n: number) => invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total: `$${n}.00`, vendor: 'Private Ltd' });

let sb: RunningSandbox;
const envs: Cli[] = [];
beforeAll(async () => {
  // The case: a user whose umask lets others read what they create. The children inherit it.
  process.umask(0o022);
  await buildIfNeeded();
  sb = await sandbox();
}, 120_000);
afterAll(async () => {
  await sb?.close();
  for (const c of envs) await c.close();
});

async function env(service?: { url: string; token: string }): Promise<Cli> {
  const c = await cliEnv(service);
  envs.push(c);
  return c;
}

/** Every folder and file below `dir` (links not followed), with its permission bits. */
async function modes(dir: string): Promise<Map<string, { mode: number; dir: boolean }>> {
  const out = new Map<string, { mode: number; dir: boolean }>();
  const walk = async (p: string, rel: string): Promise<void> => {
    const st = await lstat(p);
    out.set(rel || '.', { mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) for (const name of await readdir(p)) await walk(join(p, name), rel ? `${rel}/${name}` : name);
  };
  await walk(dir, '');
  return out;
}

function expectPrivate(all: Map<string, { mode: number; dir: boolean }>): void {
  const open = [...all].filter(([, m]) => m.mode !== (m.dir ? 0o700 : 0o600)).map(([rel, m]) => `${rel} ${m.mode.toString(8)}`);
  expect(open).toEqual([]);
}

/** Whether another account (nobody) can read `path`: only meaningful when the tests run as root (CI). */
function nobodyReads(path: string): boolean {
  const r = spawnSync(process.execPath, ['-e', 'require("node:fs").readFileSync(process.argv[1])', path], { ...runAs, encoding: 'utf8' });
  if (r.status !== 0) expect(r.stderr).toMatch(/EACCES/);
  return r.status === 0;
}

describe('the data home is its owner\'s alone (issue 26)', () => {
  it('under umask 022 every folder is 0700 and every file 0600, WAL, SHM, PDFs and the sandbox included; another account reads none; the output folder keeps the umask', async () => {
    const cli = await env();
    // The temporary root is 0700: opened up, so that only DocSync's own modes keep another account out.
    await chmod(dirname(cli.home), 0o755);
    const inbox = cli.dir('inbox');
    const out = cli.dir('chosen/out');
    await mkdir(inbox);
    const added = await cli.run(['folders', 'add', inbox, ...FOLDER_FLAGS, '--post-process-pdf', '--output', out]);
    expect(added.code, added.stderr).toBe(0);
    const { child, exit } = cli.spawn(['serve', '--no-ui']);
    try {
      await lineMatching(child, /^engine running$/, 60_000);
      await writeFile(join(inbox, 'inv-1.pdf'), await invoice(1));
      await lineMatching(child, /^done\s+.*inv-1\.pdf$/, 60_000);
      // While serve runs: the store's WAL and SHM exist and were written.
      const all = await modes(cli.home);
      for (const name of ['docsync.db', 'docsync.db-wal', 'docsync.db-shm', 'docsync-search.db', 'sandbox/sandbox.db', 'sandbox/access-token']) expect(all.has(name), name).toBe(true);
      const pdfs = [...all.keys()].filter((k) => k.startsWith('artifacts/') && k.endsWith('.pdf'));
      expect(pdfs.length).toBeGreaterThan(0);
      expectPrivate(all);
      // The folders the user chose: made with the user's own umask, as they would by hand.
      expect([...(await modes(cli.dir('chosen')))]).toEqual([
        ['.', { mode: 0o755, dir: true }], ['out', { mode: 0o755, dir: true }],
        ['out/inv-1.csv', { mode: 0o644, dir: false }], ['out/inv-1.json', { mode: 0o644, dir: false }],
      ]);
      if (runAs) {
        for (const p of ['docsync.db', 'docsync.db-wal', 'sandbox/sandbox.db', 'sandbox/access-token', pdfs[0] as string]) expect(nobodyReads(join(cli.home, p)), p).toBe(false);
        // The check itself can tell: nobody reads the output file the user chose to share.
        expect(nobodyReads(join(out, 'inv-1.json'))).toBe(true);
      }
    } finally {
      child.kill('SIGTERM');
      await exit;
    }
  }, 120_000);

  it('a data home an older version left open is tightened at start, and DocSync says so once', async () => {
    const cli = await env({ url: sb.url, token: 'admin-token' });
    const inbox = cli.dir('inbox');
    await mkdir(inbox);
    expect((await cli.run(['folders', 'add', inbox, ...FOLDER_FLAGS])).code).toBe(0);
    // As an older version left it: folders 0755, files 0644.
    const loosen = async (): Promise<number> => {
      const all = await modes(cli.home);
      for (const [rel, m] of all) await chmod(join(cli.home, rel), m.dir ? 0o755 : 0o644);
      return all.size;
    };
    const n = await loosen();
    const { child, exit } = cli.spawn(['serve', '--no-ui']);
    await lineMatching(child, /^engine running$/, 60_000);
    child.kill('SIGTERM');
    const first = await exit;
    const said = first.stderr.split('\n').filter((l) => /readable by you alone/.test(l));
    expect(said).toEqual([`warn: DocSync made its data folder (${cli.home}) readable by you alone: an earlier version had left ${n} files and folders there open to other accounts on this computer.`]);
    expectPrivate(await modes(cli.home));
    // Started again: nothing to tighten, nothing said.
    const again = cli.spawn(['serve', '--no-ui']);
    await lineMatching(again.child, /^engine running$/, 60_000);
    again.child.kill('SIGTERM');
    expect((await again.exit).stderr).not.toMatch(/readable by you alone/);
    // The short commands tighten too, and say so on stderr.
    await loosen();
    const status = await cli.run(['status']);
    expect(status.code).toBe(0);
    expect(status.stderr).toMatch(/^note: DocSync made its data folder \(.*\) readable by you alone/);
    expectPrivate(await modes(cli.home));
  }, 120_000);
});

describe('names cannot forge lines (issue 26, item 4)', () => {
  it('a file name with a newline or a terminal escape is printed escaped by serve and the listings; JSON stays exact', async () => {
    const cli = await env({ url: sb.url, token: 'admin-token' });
    const inbox = cli.dir('inbox');
    await mkdir(inbox);
    expect((await cli.run(['folders', 'add', inbox, ...FOLDER_FLAGS])).code).toBe(0);
    const forged = 'x\nfailed   invoice-2026-0001.pdf: The service could not read this file.pdf';
    const escaped = '\u001b[2Kclean.pdf';
    const { child, exit } = cli.spawn(['serve', '--no-ui']);
    let stdout = '';
    try {
      await lineMatching(child, /^engine running$/, 60_000);
      await writeFile(join(inbox, forged), await invoice(2));
      await writeFile(join(inbox, escaped), await invoice(3));
      await lineMatching(child, /^done\s+.*(clean|this file)\.pdf$/, 60_000);
      await lineMatching(child, /^done\s+.*(clean|this file)\.pdf$/, 60_000);
    } finally {
      child.kill('SIGTERM');
      stdout = (await exit).stdout;
    }
    const lines = stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('failed'))).toEqual([]);
    expect(lines).toContain(`done     ${join(inbox, 'x\\nfailed   invoice-2026-0001.pdf: The service could not read this file.pdf')}`);
    expect(lines).toContain(`done     ${join(inbox, '\\x1b[2Kclean.pdf')}`);
    expect(stdout).not.toContain('\u001b');
    // The listing: one row per file, names escaped; --json keeps them exact.
    const listed = await cli.run(['files']);
    expect(listed.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(listed.stdout).toContain('x\\nfailed   invoice-2026-0001.pdf');
    expect(listed.stdout).not.toContain('\u001b');
    const rows = await cli.json<FileRow[]>(['files']);
    expect(rows.map((r) => r.path).sort()).toEqual([join(inbox, escaped), join(inbox, forged)].sort());
  }, 120_000);
});
