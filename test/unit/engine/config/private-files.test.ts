// The data home's modes (issue 26, item 1), on real files. The umask that hosts set is covered
// through a real `docsync serve` in test/integration/cli/private-data.test.ts.
import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { privateDatabaseAt, tightenDataHome } from '../../../../electron/engine/config/private-files.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'docsync-modes-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});
const mode = async (p: string): Promise<number> => (await stat(p)).mode & 0o777;

describe('tightenDataHome', () => {
  it('makes a new data home 0700 whatever the umask, and has nothing to say', async () => {
    const old = process.umask(0o022);
    try {
      expect(tightenDataHome(join(root, 'new', 'home'))).toBe(0);
    } finally {
      process.umask(old);
    }
    expect(await mode(join(root, 'new', 'home'))).toBe(0o700);
  });

  it('tightens an older, open data home: folders 0700, files 0600, counted; links and what they point at are left alone', async () => {
    const home = join(root, 'home');
    await mkdir(join(home, 'artifacts', '1', 'run'), { recursive: true });
    await writeFile(join(home, 'docsync.db'), '');
    await writeFile(join(home, 'docsync.db-wal'), '');
    await writeFile(join(home, 'artifacts', '1', 'run', 'a.pdf'), '');
    await writeFile(join(root, 'elsewhere.txt'), '');
    await symlink(join(root, 'elsewhere.txt'), join(home, 'link'));
    for (const d of [home, join(home, 'artifacts'), join(home, 'artifacts', '1'), join(home, 'artifacts', '1', 'run')]) await chmod(d, 0o755);
    for (const f of ['docsync.db', 'docsync.db-wal', 'artifacts/1/run/a.pdf']) await chmod(join(home, f), 0o644);
    await chmod(join(root, 'elsewhere.txt'), 0o644);
    expect(tightenDataHome(home)).toBe(7);
    for (const d of ['', 'artifacts', 'artifacts/1', 'artifacts/1/run']) expect(await mode(join(home, d)), d).toBe(0o700);
    for (const f of ['docsync.db', 'docsync.db-wal', 'artifacts/1/run/a.pdf']) expect(await mode(join(home, f)), f).toBe(0o600);
    expect(await mode(join(root, 'elsewhere.txt'))).toBe(0o644);
    // Once private, the next start does not walk it again.
    expect(tightenDataHome(home)).toBe(0);
  });
});

describe('privateDatabaseAt', () => {
  it('creates the database file 0600 before SQLite does, and closes an open WAL and SHM', async () => {
    const db = join(root, 'home', 'docsync.db');
    const old = process.umask(0o022);
    try {
      privateDatabaseAt(db);
    } finally {
      process.umask(old);
    }
    expect(await mode(db)).toBe(0o600);
    expect((await stat(db)).size).toBe(0);
    await writeFile(`${db}-wal`, '', { mode: 0o644 });
    await writeFile(`${db}-shm`, '', { mode: 0o644 });
    await chmod(db, 0o644);
    privateDatabaseAt(db);
    for (const p of [db, `${db}-wal`, `${db}-shm`]) expect(await mode(p), p).toBe(0o600);
  });
});
