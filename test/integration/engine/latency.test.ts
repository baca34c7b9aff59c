// A single scan reaches its results without waiting out long periods (issue 14): a real folder, the real
// sandbox over HTTP (its short test delays), a real SQLite store. Asserted on what happened, not on how
// fast: the waits given here are an hour long, so a file can only be done within the test through the
// adaptive batch wait and the quick stability rule. Speed is measured in bench/latency.ts.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canSeeWriters } from '../../../electron/engine/watch/writers.js';
import { engineEnv, type EngineEnv } from '../../helpers/engine.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { waitUntil } from '../../helpers/wait.js';

let env: EngineEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const invoice = (n: number): string => invoiceText({ invoiceNumber: `INV-${n}`, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: `${n}.50`, vendor: `Vendor ${n}` });
const HOUR = 3_600_000;

async function hotFolder(settings: Record<string, unknown>): Promise<{ e: EngineEnv; inbox: string }> {
  env = await engineEnv();
  const inbox = env.dir('inbox');
  await mkdir(inbox, { recursive: true });
  await env.engine.start();
  await env.engine.addFolder({ path: inbox, deployment: 'sandbox-invoices', ...settings });
  return { e: env, inbox };
}

/** Files per batch, in the order the batches were made. */
const batchSizes = (e: EngineEnv): number[] => {
  const per = new Map<number, number>();
  for (const f of e.engine.store.files.list()) if (f.batchId !== null) per.set(f.batchId, (per.get(f.batchId) ?? 0) + 1);
  return [...per.entries()].sort(([a], [b]) => a - b).map(([, n]) => n);
};

describe.skipIf(!canSeeWriters)('a single scan is not held back', () => {
  it('with an hour-long longest wait and stability wait, one dropped file still reaches done: 1 s after it settles, not an hour', async () => {
    const { e, inbox } = await hotFolder({ stabilityMs: HOUR, rescanIntervalMs: HOUR, batching: { quietMs: HOUR } });
    const stored = e.engine.store.folders.list()[0]!.settings as { batching: unknown; stabilityMs: number };
    expect(stored.batching).toEqual({ minQuietMs: 1000, quietMs: HOUR, maxFiles: 100, maxBytes: 1024 ** 3 });
    await writeFile(join(inbox, 'scan-0001.txt'), invoice(1));
    await waitUntil(() => e.engine.store.files.countByState().done === 1, 'the scan is done', 60_000);
    const [f] = e.engine.store.files.list();
    expect(e.engine.store.files.history(f!.id).map((h) => h.toState)).toEqual(['discovered', 'stable', 'queued', 'uploading', 'uploaded', 'running', 'done']);
    expect(e.engine.store.runs.listRuns().map((r) => r.status)).toEqual(['COMPLETE']);
    const fields = Object.fromEntries(e.engine.store.results.resultsOfFile(f!.id)[0]!.documents[0]!.fields.map((x) => [x.name, x.value]));
    expect(fields.invoice_number).toBe('INV-1');
  });

  it('a file a program still has open for writing is not taken, however long it sits unchanged; once closed, it is', async () => {
    const { e, inbox } = await hotFolder({ stabilityMs: HOUR, rescanIntervalMs: HOUR, batching: { quietMs: HOUR } });
    const path = join(inbox, 'stack.txt');
    // The "scanner": creates the file, writes the first page, keeps it open until told.
    const code = `const fs=require('fs');const fd=fs.openSync(${JSON.stringify(path)},'a');fs.writeSync(fd,${JSON.stringify(invoice(2))});process.stdout.write('open\\n');process.stdin.on('data',()=>{fs.closeSync(fd);process.exit(0)});`;
    const scanner = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise((r) => scanner.stdout!.once('data', r));
      // Long enough for several quick looks (every 500 ms): the open file stays untaken.
      await new Promise((r) => setTimeout(r, 2500));
      expect(e.engine.store.files.list()).toEqual([]);
      await new Promise((r) => {
        scanner.once('exit', r);
        scanner.stdin!.write('close');
      });
    } finally {
      scanner.kill();
    }
    await waitUntil(() => e.engine.store.files.countByState().done === 1, 'the closed file is done', 60_000);
  });
});

describe.skipIf(!canSeeWriters)('a burst still forms large batches', () => {
  it('250 files moved in at once, default batching: at most 4 batches, each of at most 100 files, all done', async () => {
    const { e, inbox } = await hotFolder({});
    const src = e.dir('scanner-out');
    await mkdir(src, { recursive: true });
    for (let i = 0; i < 250; i++) await writeFile(join(src, `scan-${String(i).padStart(4, '0')}.txt`), invoice(1000 + i));
    await new Promise<void>((resolve, reject) => {
      const mv = spawn('sh', ['-c', `mv "${src}"/* "${inbox}"/`], { stdio: 'inherit' });
      mv.once('exit', (c) => (c === 0 ? resolve() : reject(new Error(`mv exited with ${c}`))));
    });
    await waitUntil(() => e.engine.store.files.countByState().done === 250, 'all 250 are done', 180_000);
    const sizes = batchSizes(e);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(250);
    expect(sizes.length).toBeLessThanOrEqual(4);
    for (const n of sizes) expect(n).toBeLessThanOrEqual(100);
    expect(e.engine.store.runs.listRuns()).toHaveLength(sizes.length);
  }, 240_000);
});
