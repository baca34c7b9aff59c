/** Search snippets: matched terms arrive between \u0001 and \u0002; the UI shows them in <mark>. */
export interface Segment {
  text: string;
  mark: boolean;
}

const OPEN = '\u0001';
const CLOSE = '\u0002';

/** Splits a snippet into plain and matched parts; stray or unbalanced markers are dropped, never shown. */
export function snippetSegments(snippet: string): Segment[] {
  const out: Segment[] = [];
  let mark = false;
  let text = '';
  const push = (): void => {
    if (!text) return;
    const last = out[out.length - 1];
    if (last && last.mark === mark) last.text += text;
    else out.push({ text, mark });
    text = '';
  };
  for (const ch of snippet) {
    if (ch === OPEN || ch === CLOSE) {
      push();
      mark = ch === OPEN;
    } else {
      text += ch;
    }
  }
  push();
  return out;
}

/** The snippet as plain text (for aria labels and titles). */
export function snippetText(snippet: string): string {
  return snippet.replaceAll(OPEN, '').replaceAll(CLOSE, '');
}
