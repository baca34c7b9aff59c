/** Default ignores (issue 4: ".part, .crdownload, ~$*, .tmp and dotfiles ignored by default"), user patterns, the glob syntax. */
import { describe, expect, it } from 'vitest';
import { compileGlob, globError } from '../../../../shared/glob.js';
import { createFilter, DEFAULT_IGNORES } from '../../../../electron/engine/watch/ignore.js';

describe('default ignores', () => {
  const f = createFilter({ nocase: false });
  it.each(['.DS_Store', '.hidden.pdf', 'sub/.env', 'a.pdf.part', 'big.zip.crdownload', '~$report.docx', 'x.tmp', 'deep/er/~$lock.xlsx'])(
    '%s is ignored',
    (rel) => expect(f.fileAllowed(rel)).toBe(false),
  );
  it.each(['invoice.pdf', 'sub/scan 1.tiff', 'report.docx', 'partial.pdf', 'a.tmp.pdf', 'tmp', 'x~$.pdf'])('%s is a candidate', (rel) =>
    expect(f.fileAllowed(rel)).toBe(true),
  );
  it('dot-folders are not entered, other folders are', () => {
    expect(f.dirAllowed('.git')).toBe(false);
    expect(f.dirAllowed('a/.cache')).toBe(false);
    expect(f.dirAllowed('invoices')).toBe(true);
  });
  it('pathIgnored looks at every segment (watcher hints)', () => {
    expect(f.pathIgnored('.git/objects/ab')).toBe(true);
    expect(f.pathIgnored('a/b/c.pdf')).toBe(false);
  });
  it('lists the five defaults', () => expect([...DEFAULT_IGNORES].sort()).toEqual(['*.crdownload', '*.part', '*.tmp', '.*', '~$*']));
});

describe('user patterns', () => {
  it('ignore patterns add to the defaults', () => {
    const f = createFilter({ ignore: ['*.log', 'drafts'], nocase: false });
    expect(f.fileAllowed('run.log')).toBe(false);
    expect(f.fileAllowed('x.part')).toBe(false);
    expect(f.dirAllowed('drafts')).toBe(false);
    expect(f.dirAllowed('final')).toBe(true);
  });
  it('include patterns restrict files, not folders', () => {
    const f = createFilter({ include: ['*.pdf', '*.{tif,tiff}'], nocase: false });
    expect(f.fileAllowed('a.pdf')).toBe(true);
    expect(f.fileAllowed('sub/b.tiff')).toBe(true);
    expect(f.fileAllowed('c.docx')).toBe(false);
    expect(f.dirAllowed('sub')).toBe(true);
    expect(f.fileAllowed('.x.pdf')).toBe(false);
  });
  it('nocase matches regardless of case', () => {
    expect(createFilter({ include: ['*.pdf'], nocase: true }).fileAllowed('A.PDF')).toBe(true);
    expect(createFilter({ include: ['*.pdf'], nocase: false }).fileAllowed('A.PDF')).toBe(false);
  });
});

describe('glob syntax', () => {
  it.each([
    ['*.pdf', 'a.pdf', true],
    ['*.pdf', 'x/y/a.pdf', true],
    ['*.pdf', 'a.pdfx', false],
    ['in/*.pdf', 'in/a.pdf', true],
    ['in/*.pdf', 'in/x/a.pdf', false],
    ['in/**/*.pdf', 'in/a.pdf', true],
    ['in/**/*.pdf', 'in/x/y/a.pdf', true],
    ['/top.pdf', 'top.pdf', true],
    ['/top.pdf', 'x/top.pdf', false],
    ['?.pdf', 'a.pdf', true],
    ['?.pdf', 'ab.pdf', false],
    ['[ab].pdf', 'b.pdf', true],
    ['[!ab].pdf', 'b.pdf', false],
    ['[a-c]x', 'cx', true],
    ['{a,b{c,d}}.txt', 'bd.txt', true],
    ['{a,b{c,d}}.txt', 'b.txt', false],
    ['a+b (1).pdf', 'a+b (1).pdf', true],
    ['\\*.pdf', '*.pdf', true],
    ['\\*.pdf', 'a.pdf', false],
  ] as [string, string, boolean][])('%s vs %s -> %s', (pattern, rel, expected) => {
    expect(compileGlob(pattern).match(rel)).toBe(expected);
  });
  it.each([['[abc'], ['{a,b'], ['a}'], [''], ['x\\']])('%j is rejected with a reason', (p) => {
    expect(globError(p)).toMatch(/bad pattern|empty/);
  });
  it('a good pattern has no error', () => expect(globError('**/*.pdf')).toBeUndefined());
});
