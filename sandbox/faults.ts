/**
 * Fault injection for the service API (never for /sandbox/ calls). A spec such as
 * `5xx=0.1,429=0.05,reset=0.02,latency=50,seed=7` gives, per request and from a seeded
 * generator so a run can be repeated: a 500/503 answer, a 429 with Retry-After, a
 * connection destroyed before or after the request body is read, and added latency.
 */
import { seededRandom } from '../shared/seeded-random.js';

export interface FaultSpec {
  p5xx: number;
  p429: number;
  pReset: number;
  latencyMs: number;
  /** Seconds announced in Retry-After. */
  retryAfterS: number;
  seed: number;
}

export type FaultDecision =
  | { kind: 'none' }
  | { kind: '5xx'; status: 500 | 503 }
  | { kind: '429'; retryAfter: string }
  | { kind: 'reset'; when: 'before-body' | 'after-body' };

const KEYS: Record<string, keyof FaultSpec> = {
  '5xx': 'p5xx',
  '429': 'p429',
  reset: 'pReset',
  latency: 'latencyMs',
  retryafter: 'retryAfterS',
  seed: 'seed',
};

export function parseFaultSpec(text: string): FaultSpec {
  const spec: FaultSpec = { p5xx: 0, p429: 0, pReset: 0, latencyMs: 0, retryAfterS: 1, seed: 1 };
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [key, value, extra] = item.split('=');
    const field = key === undefined ? undefined : KEYS[key.toLowerCase()];
    if (!field || value === undefined || extra !== undefined) {
      throw new Error(`bad fault "${item}": expected one of ${Object.keys(KEYS).join(', ')} as key=value`);
    }
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new Error(`bad fault "${item}": value must be a non-negative number`);
    if (field.startsWith('p') && n > 1) throw new Error(`bad fault "${item}": a probability lies between 0 and 1`);
    spec[field] = n;
  }
  if (spec.p5xx + spec.p429 + spec.pReset > 1) throw new Error('bad faults: the probabilities add up to more than 1');
  return spec;
}


export class FaultInjector {
  private readonly next: () => number;
  private count429 = 0;
  readonly counts = { '5xx': 0, '429': 0, reset: 0 };

  constructor(readonly spec: FaultSpec) {
    this.next = seededRandom(spec.seed);
  }

  decide(): FaultDecision {
    const r = this.next();
    const second = this.next();
    const { p5xx, p429, pReset } = this.spec;
    if (r < p5xx) {
      this.counts['5xx']++;
      return { kind: '5xx', status: second < 0.5 ? 500 : 503 };
    }
    if (r < p5xx + p429) {
      this.counts['429']++;
      // Alternate both forms of Retry-After (delta-seconds and HTTP-date) so clients must honour each.
      const secs = this.spec.retryAfterS;
      // An HTTP-date has whole seconds: round up so the date never asks for less than `secs`.
      const retryAfter = this.count429++ % 2 === 0 ? String(Math.ceil(secs)) : new Date(Math.ceil((Date.now() + secs * 1000) / 1000) * 1000).toUTCString();
      return { kind: '429', retryAfter };
    }
    if (r < p5xx + p429 + pReset) {
      this.counts.reset++;
      return { kind: 'reset', when: second < 0.5 ? 'before-body' : 'after-body' };
    }
    return { kind: 'none' };
  }
}
