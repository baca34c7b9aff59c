/**
 * Retries against a sandbox that injects faults (sandbox/faults.ts: 5xx, 429 with Retry-After in
 * both forms, connection resets before or after the request takes effect).
 *
 * How duplicates are checked: the sandbox runs in this process, so its database is the ground
 * truth of what exists, with no HTTP (and no faults) in between. Each create in a burst gets a
 * unique name (or run tag); afterwards the test compares what the client reported for each one
 * (created, recovered after an ambiguous failure, or failed as 'ambiguous') with the rows that
 * exist. Faults are switched on only after the fixtures are in place (the injector reads its
 * probabilities on every request), so setup never fails.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServiceError, type RetryEvent, type ServiceClient } from '../../../electron/engine/service/index.js';
import { parseFaultSpec, type FaultSpec } from '../../../sandbox/faults.js';
import { invoiceText } from '../../helpers/pdf-fixtures.js';
import { batchFilePath, clientEnv, type ClientEnv } from './env.js';

const PART = 64 * 1024;
let env: ClientEnv;
let retries: RetryEvent[];
let client: ServiceClient;

/** Sets the sandbox's fault probabilities (seeded, so every run of this file sees the same faults). */
function faults(text: string): FaultSpec {
  const spec = env.sb.faults as { spec: FaultSpec; counts: Record<string, number> };
  Object.assign(spec.spec, parseFaultSpec(text));
  return spec.spec;
}
const injected = (): number => Object.values((env.sb.faults as { counts: Record<string, number> }).counts).reduce((a, b) => a + b, 0);

beforeAll(async () => {
  env = await clientEnv({ faults: parseFaultSpec(''), partSize: PART });
  retries = [];
  client = env.client('admin-token', { username: 'admin', onRetry: (e) => retries.push(e) });
});
afterAll(() => env.close());

describe('idempotent calls under 5xx and 429 faults', () => {
  it('100 GETs all succeed, with exactly one retry per injected fault', async () => {
    const { id } = await client.createBatch({ name: 'target' });
    faults('5xx=0.2,429=0.1,retryafter=0,seed=3');
    const before = injected();
    retries.length = 0;
    const got: number[] = [];
    for (let i = 0; i < 100; i++) got.push((await client.getBatch(id)).id);
    faults('');
    expect(got).toEqual(Array(100).fill(id));
    const faultsSeen = injected() - before;
    expect(faultsSeen).toBeGreaterThan(15);
    expect(retries).toHaveLength(faultsSeen);
    expect(new Set(retries.map((r) => r.status))).toEqual(new Set([500, 503, 429].filter((s) => retries.some((r) => r.status === s))));
    expect(retries.some((r) => r.status === 429 && r.retryAfter !== undefined)).toBe(true);
  });
});

describe('calls that are not idempotent under connection resets', () => {
  it('a burst of creates never makes a duplicate batch: every batch is one the client reported', async () => {
    faults('reset=0.3,seed=11');
    const outcome = new Map<string, { id: number; recovered: boolean } | 'ambiguous'>();
    for (let i = 0; i < 40; i++) {
      const name = `burst-${i}`;
      try {
        outcome.set(name, await client.createBatch({ name }));
      } catch (e) {
        if (!isServiceError(e, 'ambiguous')) throw e;
        outcome.set(name, 'ambiguous');
      }
    }
    faults('');
    const rows = env.sb.core.db.prepare("SELECT id, name FROM batches WHERE name LIKE 'burst-%'").all() as { id: number; name: string }[];
    const byName = new Map<string, number[]>();
    for (const r of rows) byName.set(r.name, [...(byName.get(r.name) ?? []), r.id]);
    for (const ids of byName.values()) expect(ids).toHaveLength(1);
    let recovered = 0;
    let ambiguous = 0;
    for (const [name, o] of outcome) {
      if (o === 'ambiguous') {
        ambiguous++;
        // Reported as ambiguous only when nothing was created (otherwise the search adopts it).
        expect(byName.get(name), name).toBeUndefined();
      } else {
        if (o.recovered) recovered++;
        expect(byName.get(name), name).toEqual([o.id]);
      }
    }
    expect(rows).toHaveLength(40 - ambiguous);
    // The seed makes both kinds of reset happen: after the batch was made, and before.
    expect(recovered).toBeGreaterThan(0);
    expect(ambiguous).toBeGreaterThan(0);
  });

  it('a burst of run starts never makes a duplicate run: each run is one the client reported', async () => {
    const { id } = await client.createBatch({ name: 'run-input', workspace: 'team' });
    await client.putBatchFile(id, 'inv.txt', (await env.file('inv.txt', Buffer.from(invoiceText({ invoiceNumber: 'R-1', invoiceDate: 'March 1, 2026', dueDate: '03/31/2026', total: '$1.00', vendor: 'V' })))).path);
    faults('reset=0.3,seed=5');
    const outcome = new Map<string, string | 'ambiguous'>();
    let recovered = 0;
    for (let i = 0; i < 20; i++) {
      const tag = `start-${i}`;
      try {
        const run = await client.startDeploymentRun('sandbox-invoices', { batch_id: id, settings: { tags: [tag] } });
        outcome.set(tag, run.id);
        if (run.recovered) recovered++;
      } catch (e) {
        if (!isServiceError(e, 'ambiguous')) throw e;
        outcome.set(tag, 'ambiguous');
      }
    }
    faults('');
    const rows = env.sb.core.db.prepare('SELECT id, tags FROM runs WHERE batch_id = ?').all(id) as { id: string; tags: string }[];
    const byTag = new Map<string, string[]>();
    for (const r of rows) for (const t of JSON.parse(r.tags) as string[]) byTag.set(t, [...(byTag.get(t) ?? []), r.id]);
    for (const [tag, o] of outcome) {
      if (o === 'ambiguous') expect(byTag.get(tag), tag).toBeUndefined();
      else expect(byTag.get(tag), tag).toEqual([o]);
    }
    expect(rows.length).toBe([...outcome.values()].filter((o) => o !== 'ambiguous').length);
    expect(recovered).toBeGreaterThan(0);
    expect([...outcome.values()].filter((o) => o === 'ambiguous').length).toBeGreaterThan(0);
  });
});

describe('uploads and downloads under mixed faults', () => {
  it('a multipart upload retries each part on its own (one part failed twice, then went in) and arrives byte-equal', async () => {
    const { id } = await client.createBatch({ name: 'faulty-upload' });
    const f = await env.file('faulty.bin', 30 * PART + 99);
    // Parts run in parallel, so which request meets which fault varies; at these rates some part of
    // 31 fails at least twice in a row with near certainty, and 15 retries make giving up negligible.
    const patient = env.client('admin-token', { onRetry: (e) => retries.push(e), retry: { limit: 15, baseDelayMs: 2, maxDelayMs: 20, maxRetryAfterMs: 1000 } });
    faults('5xx=0.3,429=0.1,reset=0.05,retryafter=0,seed=21');
    retries.length = 0;
    const r = await patient.uploadMultipart(id, 'faulty.bin', f.path, { concurrency: 4 });
    const perPart = new Map<string, number>();
    for (const e of retries.filter((x) => x.operation === 'uploadPart')) perPart.set(e.request, (perPart.get(e.request) ?? 0) + 1);
    expect(Math.max(...perPart.values())).toBeGreaterThanOrEqual(2);
    const b = await patient.getBatch(id);
    const dest = join(env.dir, 'faulty-back.bin');
    await patient.downloadFile(batchFilePath(b, 'faulty.bin'), dest);
    faults('');
    expect(r.parts).toHaveLength(31);
    expect((await readFile(dest)).equals(f.data)).toBe(true);
  });

  it('single PUTs and file writes under faults: every file byte-equal when read back through /v2/files', async () => {
    const { id } = await client.createBatch({ name: 'faulty-puts' });
    const files = await Promise.all(Array.from({ length: 12 }, (_, i) => env.file(`p${i}.bin`, 5_000 + i)));
    faults('5xx=0.15,429=0.05,reset=0.1,retryafter=0,seed=8');
    retries.length = 0;
    await Promise.all(files.map((f, i) => client.putBatchFile(id, `p${i}.bin`, f.path)));
    await Promise.all(files.map((f, i) => client.writeFile(`svc-drive/faulty/w${i}.bin`, f.path)));
    const b = await client.getBatch(id);
    const back = await Promise.all(files.map((_, i) => client.readFile(batchFilePath(b, `p${i}.bin`))));
    const written = await Promise.all(files.map((_, i) => client.readFile(`svc-drive/faulty/w${i}.bin`)));
    faults('');
    files.forEach((f, i) => {
      expect(back[i]?.data.equals(f.data)).toBe(true);
      expect(written[i]?.data.equals(f.data)).toBe(true);
    });
    expect(retries.length).toBeGreaterThan(0);
  });
});
