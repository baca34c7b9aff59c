/**
 * How well the service read a set of scans: the share of expected field values it returned exactly,
 * and whether each matched value's box lies on the value's printed position.
 */
import type { Scan, ScanField } from '../scans.js';
import { centreInside, iou } from './geometry.js';
import type { Box } from './geometry.js';

/** The parts of a results file this scoring reads. */
export interface ReadFile {
  documents: {
    class_name: string | null;
    fields: { field_name: string; value: string; source_coordinates?: { top_x: number; top_y: number; bottom_x: number; bottom_y: number; page_number: number }[] }[];
    page_layouts?: { page_number: number; width: number; height: number }[];
  }[];
}

/** A box lies on its value's position when it overlaps a place the value is printed by IoU >= 0.3, or its centre is inside one. */
export const MIN_IOU = 0.3;

export interface FieldScore {
  scan: string;
  made: string;
  field: string;
  expected: string;
  got: string | null;
  match: boolean;
  /** null when the value did not match (its box is not judged) or came with no box. */
  onPosition: boolean | null;
  iou: number | null;
}

export interface Score {
  scans: number;
  pages: number;
  fields: number;
  matched: number;
  /** matched / fields. */
  accuracy: number;
  /** Matched fields whose box lies on the value's position. */
  onPosition: number;
  /** onPosition / matched (1 when nothing matched). */
  boxAgreement: number;
  /** Pages whose page_layout size differs from the scan's page by more than 1 %. */
  layoutMismatches: string[];
  details: FieldScore[];
}

function returnedField(file: ReadFile, name: string): ReadFile['documents'][number]['fields'][number] | null {
  // The invoice's document first: a misread page may split off into a document of its own.
  const docs = [...file.documents].sort((a, b) => Number(b.class_name === 'Invoice') - Number(a.class_name === 'Invoice'));
  for (const d of docs) {
    const f = d.fields.find((x) => x.field_name === name && x.value !== '');
    if (f) return f;
  }
  return null;
}

function judge(scan: Scan, want: ScanField, file: ReadFile | null): FieldScore {
  const got = file ? returnedField(file, want.name) : null;
  const base = { scan: scan.name, made: scan.made, field: want.name, expected: want.value, got: got?.value ?? null };
  if (!got || got.value !== want.value) return { ...base, match: false, onPosition: null, iou: null };
  const c = got.source_coordinates?.[0];
  if (!c) return { ...base, match: true, onPosition: false, iou: null };
  const box: Box = { x0: c.top_x, y0: c.top_y, x1: c.bottom_x, y1: c.bottom_y };
  const places = [want.box, ...(want.alsoAt ?? [])];
  const samePage = c.page_number === want.page;
  const overlap = samePage ? Math.max(...places.map((p) => iou(box, p))) : 0;
  const on = samePage && (overlap >= MIN_IOU || places.some((p) => centreInside(box, p)));
  return { ...base, match: true, onPosition: on, iou: Math.round(overlap * 100) / 100 };
}

function layoutMismatches(scan: Scan, file: ReadFile | null): string[] {
  const out: string[] = [];
  const layouts = new Map((file?.documents ?? []).flatMap((d) => d.page_layouts ?? []).map((l) => [l.page_number, l]));
  scan.pages.forEach((p, n) => {
    const l = layouts.get(n);
    if (l && (Math.abs(l.width - p.width) > p.width / 100 || Math.abs(l.height - p.height) > p.height / 100)) {
      out.push(`${scan.name} page ${n}: service ${l.width} x ${l.height}, scan ${p.width} x ${p.height}`);
    }
  });
  return out;
}

/** `files` maps a scan's file name to what the service returned for it (absent: nothing returned). */
export function score(scans: Scan[], files: Map<string, ReadFile>): Score {
  const details = scans.flatMap((s) => s.fields.map((f) => judge(s, f, files.get(s.name) ?? null)));
  const matched = details.filter((d) => d.match).length;
  const onPosition = details.filter((d) => d.onPosition === true).length;
  return {
    scans: scans.length,
    pages: scans.reduce((n, s) => n + s.pages.length, 0),
    fields: details.length,
    matched,
    accuracy: details.length === 0 ? 0 : matched / details.length,
    onPosition,
    boxAgreement: matched === 0 ? 1 : onPosition / matched,
    layoutMismatches: scans.flatMap((s) => layoutMismatches(s, files.get(s.name) ?? null)),
    details,
  };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

/** The figures and every failure, in lines for a test's output. */
export function report(s: Score): string {
  const lines = [
    `scans: ${s.scans}, pages: ${s.pages}, fields: ${s.fields}`,
    `values matched: ${s.matched} of ${s.fields} (${pct(s.accuracy)})`,
    `boxes on the value's position: ${s.onPosition} of ${s.matched} matched (${pct(s.boxAgreement)})`,
  ];
  const by = (key: (d: FieldScore) => string): string[] => {
    const groups = new Map<string, FieldScore[]>();
    for (const d of s.details) groups.set(key(d), [...(groups.get(key(d)) ?? []), d]);
    return [...groups].map(([k, ds]) => `  ${k}: ${ds.filter((d) => d.match).length}/${ds.length}`);
  };
  lines.push('by field:', ...by((d) => d.field), 'by kind of scan:', ...by((d) => d.made.split(',')[0]!));
  for (const d of s.details.filter((x) => !x.match)) lines.push(`MISREAD ${d.scan} (${d.made}) ${d.field}: expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.got)}`);
  for (const d of s.details.filter((x) => x.onPosition === false)) lines.push(`OFF POSITION ${d.scan} (${d.made}) ${d.field}: IoU ${d.iou ?? 'no box'}`);
  for (const m of s.layoutMismatches) lines.push(`PAGE SIZE ${m}`);
  return lines.join('\n');
}
