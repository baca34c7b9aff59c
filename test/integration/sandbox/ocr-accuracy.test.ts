/**
 * OCR accuracy on generated scans (issue 13): scanSet's 24 scanned-looking invoices (PNG, JPEG,
 * multi-page G4 TIFF, image-only PDF; skew, noise, turned pages) uploaded to a real sandbox over HTTP,
 * run by the invoice deployment with real tesseract.js workers, results fetched with source info.
 * At least 95 % of the expected field values must come back exactly, and every matched value's box
 * must lie on the value's printed position (IoU >= 0.3 or centre inside). The figures and every
 * misread are printed, and written to test-results/ocr-accuracy.txt.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { scanSet } from '../../helpers/scans.js';
import type { Scan } from '../../helpers/scans.js';
import { report, score } from '../../helpers/scans/score.js';
import type { ReadFile, Score } from '../../helpers/scans/score.js';
import { closeAndClean, fileNamed, makeBatch, results, startDeploymentRun, waitRun, type Call } from './run-helpers.js';

// SCAN_COUNT=48 measures a larger set, whose later scans nobody tuned the OCR against.
const SCANS = Number(process.env.SCAN_COUNT ?? 24);
// OCR of about 35 pages at up to 300 dpi on a shared 2-core machine takes about 5 minutes.
const RUN_TIMEOUT_MS = Math.max(20, SCANS) * 60_000;

let sb: RunningSandbox;
let admin: Call;
let scans: Scan[];
let run: any;
let measured: Score;

beforeAll(async () => {
  scans = await scanSet(SCANS);
  sb = await sandbox({ resultsPageSize: 100 });
  admin = caller(sb.url, 'admin-token');
  const batchId = await makeBatch(admin, Object.fromEntries(scans.map((s) => [s.name, s.bytes])));
  const started = await startDeploymentRun(admin, 'sandbox-invoices', { batch_id: batchId });
  run = await waitRun(admin, started.id, ['COMPLETE', 'FAILED', 'CANCELLED'], RUN_TIMEOUT_MS);
  const body = await results(admin, run.id, { include_source_info: true });
  measured = score(scans, new Map(scans.map((s): [string, ReadFile] => [s.name, fileNamed(body, s.name)])));
  const text = report(measured);
  console.log(text);
  await mkdir('test-results', { recursive: true });
  await writeFile('test-results/ocr-accuracy.txt', `${text}\n`);
}, RUN_TIMEOUT_MS + 120_000);

afterAll(async () => {
  await closeAndClean(sb);
});

describe(`OCR accuracy on ${SCANS} generated scans`, () => {
  it('completes the run over every scan', () => {
    expect(run.status).toBe('COMPLETE');
    expect(measured.scans).toBeGreaterThanOrEqual(20);
    expect(measured.fields).toBe(scans.reduce((n, s) => n + s.fields.length, 0));
  });

  it('gives page sizes in the units the boxes are measured in', () => {
    expect(measured.layoutMismatches).toEqual([]);
  });

  it('reads at least 95 % of the field values exactly', () => {
    expect(measured.accuracy).toBeGreaterThanOrEqual(0.95);
  });

  it("puts every matched value's box on the value's position", () => {
    expect(measured.details.filter((d) => d.onPosition === false).map((d) => `${d.scan} ${d.field} IoU ${d.iou}`)).toEqual([]);
    expect(measured.boxAgreement).toBe(1);
  });
});
