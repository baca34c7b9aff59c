/** Strings from the service made local names (issue 26, item 3): hostile values stay inside their folder, and never share a name. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInside, LocalFileNames, localName, MAX_LOCAL, OutsideFolderError, pathInside, sharedFilePath } from '../../../../electron/engine/config/local-names.js';

const DEVICES = ['CON', 'PRN', 'AUX', 'NUL', ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`COM${n}`, `LPT${n}`])];
const HOSTILE = [
  '..', '.', '...', '/', '\\', '\0', 'a\0b', '\u0001\u001f\u007f', 'a\nb', 'C:', 'C:\\x', 'c:x', 'C:/x',
  '\\\\server\\share', '//server/share', '\\\\?\\C:\\x', '../../../x', '..\\..\\..\\x', '/etc/passwd',
  'x'.repeat(300), '日'.repeat(300), ...DEVICES, ...DEVICES.map((d) => d.toLowerCase()), 'con.pdf', 'CON.tar.gz', 'nul.', 'com1 ', 'Lpt9.txt',
  'conin$', 'abc.', 'abc ', 'abc...', ' ', '', 'ABC', 'Run-1', 'é', 'e\u0301', '😀', '\ud800', '\udc00', 'a~1', 'progra~1',
];
const DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;

/** What every local name must be, on Windows and on POSIX alike. */
function expectSafe(name: string): void {
  expect(name).not.toMatch(/[\u0000-\u001f\u007f/\\:*?"<>|]/u);
  expect(['', '.', '..']).not.toContain(name);
  expect(name).not.toMatch(/[. ]$/);
  expect(DEVICE.test((name.split('.')[0] ?? '').trimEnd())).toBe(false);
  expect(name.length).toBeLessThanOrEqual(MAX_LOCAL);
  expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
  for (const p of [path.posix, path.win32]) {
    const root = p === path.posix ? '/data/artifacts' : 'C:\\data\\artifacts';
    expect(p.dirname(p.resolve(root, name))).toBe(root);
  }
}

describe('localName: run ids and other service ids as folder names', () => {
  it.each(['run_0123456789abcdef01234567', '3f2a9c1e-7b4d-4e1a-9c3b-0d2e4f6a8b1c', '12345', 'a.b-c_d', '_x'])('an ordinary id %j keeps its folder name', (id) => {
    expect(localName(id)).toBe(id);
  });

  it.each(HOSTILE)('%j becomes one safe name inside the folder, the same each time', (id) => {
    const name = localName(id);
    expectSafe(name);
    expect(name).toMatch(/^[A-Za-z0-9._-]+~[0-9a-f]{10}$/);
    expect(localName(id)).toBe(name);
  });

  it('no two different ids share a name, not even compared without case', () => {
    const ids = [...new Set([...HOSTILE, 'a_b', 'a/b', 'a\\b', 'a:b', 'abc', 'Abc', 'aBC', 'run-a', 'run-A', 'RUN-A', 'x.pdf', 'X.PDF', 'X.pdf'])];
    const names = ids.map(localName);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(ids.length);
  });

  it.each([['ABC', 'abc'], ['Abc', 'aBC'], ['CON', 'con'], ['X.PDF', 'x.pdf'], ['\ud800', '\udc00']])('%j and %j map to names that differ case-insensitively', (a, b) => {
    expect(localName(a).toLowerCase()).not.toBe(localName(b).toLowerCase());
  });
});

describe('LocalFileNames: a post-processed PDF\'s service path as a file name in its run\'s folder', () => {
  it('an ordinary PDF keeps its name', () => {
    expect(new LocalFileNames().assign('svc-drive/runs/run_1/output/post_processed/0-inv-1-doc1.pdf')).toBe('0-inv-1-doc1.pdf');
  });

  it.each(HOSTILE)('%j becomes a safe name inside the folder', (p) => {
    expectSafe(new LocalFileNames().assign(p));
    expectSafe(new LocalFileNames().assign(`svc-drive/out/${p}`));
  });

  it('names that differ only in case, or only in their folder on the service, get different names; those already in the folder are kept free', () => {
    const names = new LocalFileNames(['taken.pdf']);
    const got = ['a/Doc.pdf', 'b/doc.pdf', 'DOC.PDF', 'c/Doc.pdf', 'TAKEN.pdf', 'e\u0301.pdf', '\u00e9.pdf'].map((p) => names.assign(p));
    expect(got).toEqual(['Doc.pdf', 'doc (2).pdf', 'DOC (3).PDF', 'Doc (4).pdf', 'TAKEN (2).pdf', 'é.pdf', 'é (2).pdf']);
    expect(new Set(got.map((n) => n.toLowerCase())).size).toBe(got.length);
  });

  it('a name never lands on another download\'s .part, nor the other way round', () => {
    const a = new LocalFileNames();
    expect([a.assign('x.pdf'), a.assign('X.pdf.part')]).toEqual(['x.pdf', 'X.pdf (2).part']);
    const b = new LocalFileNames();
    expect([b.assign('y.pdf.part'), b.assign('y.pdf')]).toEqual(['y.pdf.part', 'y (2).pdf']);
  });

  it('device names are escaped also with an extension, long names are cut in the stem', () => {
    const n = new LocalFileNames();
    expect(['con.pdf', 'CON.tar.gz', 'lpt1'].map((x) => n.assign(x))).toEqual(['_con.pdf', '_CON.tar.gz', '_lpt1']);
    const long = n.assign(`${'x'.repeat(300)}.pdf`);
    expect(long).toBe(`${'x'.repeat(MAX_LOCAL - 4)}.pdf`);
  });
});

describe('sharedFilePath: a shared folder\'s record names a file in the hot folder', () => {
  it.each(['a.pdf', 'sub/a.pdf', 'a..b.pdf', '..a.pdf'])('%j is taken, inside the folder', (rel) => {
    expect(sharedFilePath('/in', rel, path.posix)).toBe(path.posix.join('/in', rel));
    expect(sharedFilePath('C:\\in', rel, path.win32)).toBe(path.win32.join('C:\\in', rel));
  });

  it('a POSIX file name with a backslash or colon is an ordinary file there', () => {
    expect(sharedFilePath('/in', 'a\\b:c.pdf', path.posix)).toBe('/in/a\\b:c.pdf');
  });

  it.each(['..', '.', '', '../x', 'a/../../x', 'sub/../../x', '/etc/passwd', 'a//b', 'a/', 'a\0b', '../../../home/u/.ssh/id_rsa'])('%j is refused on every system', (rel) => {
    for (const [root, p] of [['/in', path.posix], ['C:\\in', path.win32]] as const) {
      expect(() => sharedFilePath(root, rel, p)).toThrow(OutsideFolderError);
    }
    expect(() => sharedFilePath('/in', rel, path.posix)).toThrow(/records name a file that is not inside the folder/);
  });

  it.each(['..\\x', 'a\\..\\..\\x', 'C:\\x', 'C:x', 'D:', '\\\\server\\share\\x', 'a:stream'])('%j is refused on Windows', (rel) => {
    expect(() => sharedFilePath('C:\\in', rel, path.win32)).toThrow(OutsideFolderError);
  });
});

describe('pathInside and isInside: the second guard', () => {
  it.each([[['..']], [['a', '..', '..']], [['/etc']], [['']], [['.']]])('%j resolves outside (or onto) the root and is refused', (names) => {
    expect(() => pathInside('/data/artifacts', names, path.posix)).toThrow(OutsideFolderError);
  });

  it('Windows: another drive, a UNC path or a drive-relative name is refused', () => {
    for (const n of ['D:\\x', '\\\\server\\share\\x', 'C:..\\x', '..\\x']) expect(() => pathInside('C:\\data\\artifacts', [n], path.win32)).toThrow(OutsideFolderError);
  });

  it('a path inside is kept, and a name starting with two dots is inside', () => {
    expect(pathInside('/data/artifacts', ['1', 'run_a'], path.posix)).toBe('/data/artifacts/1/run_a');
    expect(isInside('/data/artifacts', '/data/artifacts/..x', path.posix)).toBe(true);
    expect(isInside('/data/artifacts', '/data/artifacts-other/x', path.posix)).toBe(false);
  });
});
