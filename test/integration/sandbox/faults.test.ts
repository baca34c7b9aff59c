import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, sandbox } from '../../helpers/sandbox.js';
import { parseFaultSpec, type RunningSandbox } from '../../../sandbox/index.js';
import { FaultInjector, type FaultSpec } from '../../../sandbox/faults.js';
import { closeAndClean } from './run-helpers.js';

/** Issue section 4: --faults gives seeded 500/503, 429 + Retry-After, destroyed connections and latency; never on /sandbox/. */

interface Outcome {
  status: number | 'reset';
  retryAfter?: string | undefined;
}

/** One request on a fresh connection (no keep-alive), so a destroyed socket is seen as exactly one 'reset'. */
function hit(base: string, method: string, p: string, body?: unknown): Promise<Outcome> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${base}${p}`, {
      method,
      agent: false,
      headers: { Authorization: 'Bearer admin-token', ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}) },
    });
    req.on('response', (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      res.on('error', () => resolve({ status: 'reset' }));
    });
    req.on('error', () => resolve({ status: 'reset' }));
    req.end(payload);
  });
}

async function sequence(base: string, n: number): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (let i = 0; i < n; i++) out.push(await hit(base, 'GET', '/v2/batches'));
  return out;
}

const count = (xs: Outcome[], pred: (o: Outcome) => boolean): number => xs.filter(pred).length;
const SPEC = '5xx=0.3,429=0.2,reset=0.1,seed=7';

describe('parseFaultSpec', () => {
  it('reads every key of a valid spec', () => {
    expect(parseFaultSpec('5xx=0.1,429=0.05,reset=0.02,latency=50,retryafter=2,seed=7')).toEqual({
      p5xx: 0.1, p429: 0.05, pReset: 0.02, latencyMs: 50, retryAfterS: 2, seed: 7,
    });
    expect(parseFaultSpec('')).toMatchObject({ p5xx: 0, p429: 0, pReset: 0, latencyMs: 0 });
    expect(parseFaultSpec('reset=1')).toMatchObject({ pReset: 1, p5xx: 0 });
  });

  it.each([
    ['bogus=1', /bogus/],
    ['5xx', /5xx/],
    ['5xx=abc', /5xx=abc/],
    ['latency=-5', /latency=-5/],
    ['429=1=2', /429=1=2/],
    ['5xx=1.5', /between 0 and 1/],
    ['5xx=0.6,429=0.3,reset=0.2', /more than 1/],
  ])('rejects %s with a clear one-line error', (text, msg) => {
    expect(() => parseFaultSpec(text)).toThrow(msg);
    try {
      parseFaultSpec(text);
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
    }
  });
});

describe(`a sandbox with faults ${SPEC}`, () => {
  let sb: RunningSandbox;
  let outcomes: Outcome[];
  beforeAll(async () => {
    sb = await sandbox({ faults: parseFaultSpec(SPEC) });
    outcomes = await sequence(sb.url, 300);
  });
  afterAll(async () => {
    await closeAndClean(sb);
  });

  it('answers a mix of 200, 500/503, 429 and destroyed connections in roughly the configured shares', () => {
    const n5xx = count(outcomes, (o) => o.status === 500 || o.status === 503);
    const n429 = count(outcomes, (o) => o.status === 429);
    const nReset = count(outcomes, (o) => o.status === 'reset');
    const n200 = count(outcomes, (o) => o.status === 200);
    expect(n5xx + n429 + nReset + n200).toBe(300);
    expect(n5xx).toBeGreaterThanOrEqual(55);
    expect(n5xx).toBeLessThanOrEqual(125);
    expect(n429).toBeGreaterThanOrEqual(30);
    expect(n429).toBeLessThanOrEqual(90);
    expect(nReset).toBeGreaterThanOrEqual(10);
    expect(nReset).toBeLessThanOrEqual(55);
    expect(n200).toBeGreaterThanOrEqual(80);
    expect(count(outcomes, (o) => o.status === 500)).toBeGreaterThan(0);
    expect(count(outcomes, (o) => o.status === 503)).toBeGreaterThan(0);
    // What the client saw is what the injector says it did.
    expect(sb.faults?.counts).toEqual({ '5xx': n5xx, '429': n429, reset: nReset });
  });

  it('sends Retry-After with every 429, in both the delta-seconds and the HTTP-date form', () => {
    const values = outcomes.filter((o) => o.status === 429).map((o) => o.retryAfter);
    for (const v of values) expect(v).toBeDefined();
    const seconds = values.filter((v) => /^\d+$/.test(v ?? ''));
    const dates = values.filter((v) => v !== undefined && /GMT$/.test(v) && !Number.isNaN(Date.parse(v)));
    expect(seconds.length).toBeGreaterThan(0);
    expect(dates.length).toBeGreaterThan(0);
    expect(seconds.length + dates.length).toBe(values.length);
  });

  it('never faults /sandbox/ calls', async () => {
    const injected = { ...sb.faults!.counts };
    for (let i = 0; i < 40; i++) {
      const h = await hit(sb.url, 'GET', '/sandbox/health');
      expect(h.status).toBe(200);
    }
    expect(sb.faults!.counts).toEqual(injected);
  });
});

describe('fault sequences are seeded', () => {
  it('the same seed gives the same outcomes in two fresh sandboxes, as the injector predicts; another seed differs', async () => {
    const spec = parseFaultSpec(SPEC);
    const runs: Outcome[][] = [];
    for (const s of [spec, spec, { ...spec, seed: 8 }]) {
      const sb = await sandbox({ faults: s });
      try {
        runs.push(await sequence(sb.url, 60));
      } finally {
        await closeAndClean(sb);
      }
    }
    const statuses = runs.map((r) => r.map((o) => o.status));
    expect(statuses[1]).toEqual(statuses[0]);
    expect(statuses[2]).not.toEqual(statuses[0]);
    const predictor = new FaultInjector(spec);
    const predicted = statuses[0]!.map(() => {
      const d = predictor.decide();
      return d.kind === 'none' ? 200 : d.kind === '5xx' ? d.status : d.kind === '429' ? 429 : 'reset';
    });
    expect(statuses[0]).toEqual(predicted);
  });
});

describe('latency', () => {
  it('latency=150 delays service calls by at least 150 ms, but not /sandbox/health', async () => {
    const sb = await sandbox({ faults: parseFaultSpec('latency=150') });
    try {
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        expect((await hit(sb.url, 'GET', '/v2/batches')).status).toBe(200);
        expect(performance.now() - t0).toBeGreaterThanOrEqual(150);
      }
      const t0 = performance.now();
      expect((await hit(sb.url, 'GET', '/sandbox/health')).status).toBe(200);
      expect(performance.now() - t0).toBeLessThan(150);
    } finally {
      await closeAndClean(sb);
    }
  });
});

describe('a reset after the body is read still takes effect', () => {
  /**
   * Faults hit every service call, listing included, so the batches are counted in a fault-free
   * sandbox started afterwards on the same data folder. The injector, seeded alike, tells which
   * resets came before the body (no batch) and which after (batch created, answer lost).
   */
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'docsync-faults-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('POST /v2/batches that the caller saw fail with a connection error created its batch when the reset came after the body', async () => {
    const spec: FaultSpec = parseFaultSpec('reset=1,seed=11');
    const predictor = new FaultInjector(spec);
    const names = Array.from({ length: 12 }, (_, i) => `reset-${i}`);
    const whens = names.map(() => {
      const d = predictor.decide();
      if (d.kind !== 'reset') throw new Error('reset=1 must always reset');
      return d.when;
    });
    expect(whens).toContain('after-body');
    expect(whens).toContain('before-body');

    const faulty = await sandbox({ dataDir, faults: spec });
    try {
      for (const name of names) expect((await hit(faulty.url, 'POST', '/v2/batches', { name, workspace: 'team' })).status).toBe('reset');
    } finally {
      await faulty.close();
    }
    const clean = await sandbox({ dataDir });
    try {
      const listed = await caller(clean.url)('GET', '/v2/batches?workspace=team&limit=100');
      expect(listed.status).toBe(200);
      const created = listed.body.batches.map((b: any) => b.name).sort();
      expect(created).toEqual(names.filter((_, i) => whens[i] === 'after-body').sort());
    } finally {
      await clean.close();
    }
  });
});
