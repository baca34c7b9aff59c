// The real OS keychain through keytar: a private D-Bus session with gnome-keyring, as on a Linux
// desktop (see README). Skipped, with the reason, where dbus-run-session or gnome-keyring is missing.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../electron/engine/config/credentials.js';
import { buildCliIfNeeded, OUT } from '../../helpers/build-cli.js';

const have = (bin: string): boolean => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
const missing = ['dbus-run-session', 'gnome-keyring-daemon'].filter((b) => !have(b));
const compiled = join(OUT, 'electron/engine/config/credentials.js');


const home = mkdtempSync(join(tmpdir(), 'docsync-keyring-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs a script against KeytarStore in a child; `withBus` gives it a private Secret Service. */
function runStore(script: string, withBus: boolean): { code: number | null; out: string; err: string } {
  const js = `import { KeytarStore } from ${JSON.stringify(compiled)}; const s = new KeytarStore(); ${script}`;
  const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_DATA_HOME: join(home, '.local/share'), XDG_CACHE_HOME: join(home, '.cache') };
  const cmd = withBus
    ? ['dbus-run-session', '--', 'sh', '-c', `echo -n pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec node --input-type=module -e '${js.replace(/'/g, `'\\''`)}'`]
    : ['node', '--input-type=module', '-e', js];
  const r = spawnSync(cmd[0] as string, cmd.slice(1), { env, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('credentials', () => {
  it('a session-only token lives in memory, per URL and account', async () => {
    const m = new MemoryStore();
    await m.set('http://a/', 'default', 't1');
    expect(await m.get('http://a', 'default')).toBe('t1');
    expect(await m.get('http://a', 'other')).toBeNull();
    expect(await m.delete('http://a', 'default')).toBe(true);
    expect(await m.get('http://a', 'default')).toBeNull();
  });

  it.skipIf(missing.length > 0)(`keytar stores, reads and deletes a token in a real Secret Service${missing.length ? ` (skipped: ${missing.join(', ')} not installed)` : ''}`, async () => {
    await buildCliIfNeeded();
    const r = runStore(
      `await s.set('http://127.0.0.1:9', 'default', 'tok-123'); const a = await s.get('http://127.0.0.1:9', 'default');
       const d = await s.delete('http://127.0.0.1:9', 'default'); const b = await s.get('http://127.0.0.1:9', 'default');
       console.log(JSON.stringify({ a, d, b }));`,
      true,
    );
    expect(r.code, r.err).toBe(0); // dbus-daemon may print notices on stderr
    expect(JSON.parse(r.out.trim())).toEqual({ a: 'tok-123', d: true, b: null });
  });

  it('without a keychain the error says so in one line, and nothing crashes', async () => {
    await buildCliIfNeeded();
    const r = runStore(
      `try { await s.get('http://127.0.0.1:9', 'default'); console.log('no error'); } catch (e) { console.log(e.name + ': ' + e.message); }`,
      false,
    );
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(r.out).toMatch(/^KeychainUnavailableError: (no keychain available|the keychain failed)/);
  });
});
