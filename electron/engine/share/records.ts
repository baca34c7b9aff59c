/**
 * The share's records on the service: where they live and what they hold. Every record read is
 * parsed and checked here; a damaged or foreign record is a ShareRecordError naming the path,
 * never a crash. Unknown fields are ignored (a newer agent may add some).
 *
 * Layout, C = the coordination folder / the share name:
 *   C/agents/<agentId>.json          heartbeat, overwritten
 *   C/claims/<sha256>/<gen>.json     a content's generations, immutable, created with If-None-Match: *
 *   C/claims/<sha256>/progress.json  summary of the finished state, for people and tools
 *   C/batches/<name>.json            batch record, overwritten by the batch's holder
 *   C/batches/<name>/<gen>.json      batch generations, immutable, created with If-None-Match: *
 */
import type { ShareBatchFile, ShareBatchRecord } from './api.js';

export class ShareRecordError extends Error {
  constructor(readonly path: string, problem: string) {
    super(`The share record ${path} cannot be read: ${problem}. Another program may have written it, or it was damaged.`);
    this.name = 'ShareRecordError';
  }
}

export const sharePaths = (base: string) => ({
  agents: `${base}/agents`,
  agent: (id: string) => `${base}/agents/${id}.json`,
  claims: (sha: string) => `${base}/claims/${sha}`,
  claim: (sha: string, gen: number) => `${base}/claims/${sha}/${gen}.json`,
  progress: (sha: string) => `${base}/claims/${sha}/progress.json`,
  batch: (name: string) => `${base}/batches/${name}.json`,
  batchGens: (name: string) => `${base}/batches/${name}`,
  batchGen: (name: string, gen: number) => `${base}/batches/${name}/${gen}.json`,
});
export type SharePaths = ReturnType<typeof sharePaths>;

/** `7.json` -> 7; anything else (progress.json, stray files) -> null. */
export function genOfName(name: string): number | null {
  const m = /^([1-9]\d{0,8})\.json$/.exec(name);
  return m ? Number(m[1]) : null;
}

export const highestGen = (names: string[]): number => names.reduce((hi, n) => Math.max(hi, genOfName(n) ?? 0), 0);

export interface Heartbeat {
  agent: string;
  name: string;
  host: string;
  pid: number;
  seq: number;
  inFlight: number;
  leaseMs: number;
  /** Wall clock of the writer (ms since the epoch): shown, never used to judge liveness. */
  at: number;
  /**
   * The batches the agent holds with work left in them, at the generation it holds: once it is
   * stale, the others take these first, even one whose contents they last saw elsewhere.
   */
  batches: HeldBatchRef[];
}

export interface HeldBatchRef {
  name: string;
  gen: number;
}

/** At most this many batches in a heartbeat: it stays small; any others are found through their contents. */
export const HEARTBEAT_BATCHES = 64;

/** Where a content stands in one generation. */
export type ClaimState = 'claimed' | 'batched' | 'done' | 'failed' | 'released';
const CLAIM_STATES: readonly ClaimState[] = ['claimed', 'batched', 'done', 'failed', 'released'];

/** One generation of a content's claim: who holds it from then on, and in what state. */
export interface ClaimGen {
  agent: string;
  name: string;
  gen: number;
  rel: string;
  size: number;
  state: ClaimState;
  /** The batch (state batched, and done/failed of a batched content). */
  batch?: string;
  /** The batch generation its holder held when this generation was made. */
  batchGen?: number;
  reason?: string | null;
  at: number;
}

export interface BatchGen {
  agent: string;
  name: string;
  gen: number;
  at: number;
}

export interface StoredBatch extends ShareBatchRecord {
  agent: string;
  gen: number;
}

export interface Progress {
  agent: string;
  name: string;
  gen: number;
  stage: ClaimState;
  batch?: string;
  reason?: string | null;
  at: number;
}

export const encode = (record: object): Uint8Array => Buffer.from(JSON.stringify(record), 'utf8');

type Obj = Record<string, unknown>;

function objectOf(path: string, bytes: Uint8Array): Obj {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new ShareRecordError(path, 'it is not JSON');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ShareRecordError(path, 'it is not a JSON object');
  return v as Obj;
}

class Fields {
  constructor(readonly path: string, readonly o: Obj) {}
  str(k: string, allowEmpty = false): string {
    const v = this.o[k];
    if (typeof v !== 'string' || (!allowEmpty && v === '')) throw new ShareRecordError(this.path, `"${k}" should be ${allowEmpty ? 'text' : 'non-empty text'}`);
    return v;
  }
  optStr(k: string): string | undefined {
    return this.o[k] === undefined || this.o[k] === null ? undefined : this.str(k, true);
  }
  int(k: string, min = 0): number {
    const v = this.o[k];
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new ShareRecordError(this.path, `"${k}" should be a whole number of at least ${min}`);
    return v;
  }
  num(k: string): number {
    const v = this.o[k];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new ShareRecordError(this.path, `"${k}" should be a number`);
    return v;
  }
  /** A list of `{name, gen}`; missing (an agent from before the field) is an empty list. */
  batchRefs(k: string): HeldBatchRef[] {
    const v = this.o[k];
    if (v === undefined) return [];
    const ok = (r: unknown): r is HeldBatchRef => typeof r === 'object' && r !== null
      && typeof (r as Obj).name === 'string' && (r as Obj).name !== '' && Number.isSafeInteger((r as Obj).gen) && ((r as Obj).gen as number) >= 1;
    if (!Array.isArray(v) || !v.every(ok)) throw new ShareRecordError(this.path, `"${k}" should be a list of batches, each with a name and a generation`);
    return v.map((r) => ({ name: r.name, gen: r.gen }));
  }
  bool(k: string): boolean {
    const v = this.o[k];
    if (typeof v !== 'boolean') throw new ShareRecordError(this.path, `"${k}" should be true or false`);
    return v;
  }
}

export function parseHeartbeat(path: string, bytes: Uint8Array): Heartbeat {
  const f = new Fields(path, objectOf(path, bytes));
  return {
    agent: f.str('agent'), name: f.str('name'), host: f.str('host', true), pid: f.int('pid'),
    seq: f.int('seq'), inFlight: f.int('inFlight'), leaseMs: f.int('leaseMs', 1), at: f.num('at'), batches: f.batchRefs('batches'),
  };
}

export function parseClaimGen(path: string, bytes: Uint8Array, expectGen: number): ClaimGen {
  const f = new Fields(path, objectOf(path, bytes));
  const state = f.str('state') as ClaimState;
  if (!CLAIM_STATES.includes(state)) throw new ShareRecordError(path, `"state" should be one of ${CLAIM_STATES.join(', ')}`);
  const gen = f.int('gen', 1);
  if (gen !== expectGen) throw new ShareRecordError(path, `it says generation ${gen} but is stored as generation ${expectGen}`);
  const rec: ClaimGen = { agent: f.str('agent'), name: f.str('name'), gen, rel: f.str('rel', true), size: f.int('size'), state, at: f.num('at') };
  const batch = f.optStr('batch');
  if (batch !== undefined) rec.batch = batch;
  if (f.o.batchGen !== undefined) rec.batchGen = f.int('batchGen', 1);
  if (state === 'batched' && (rec.batch === undefined || rec.batchGen === undefined)) throw new ShareRecordError(path, 'a batched content should name its batch and batch generation');
  const reason = f.optStr('reason');
  if (reason !== undefined) rec.reason = reason;
  return rec;
}

export function parseBatchGen(path: string, bytes: Uint8Array, expectGen: number): BatchGen {
  const f = new Fields(path, objectOf(path, bytes));
  const gen = f.int('gen', 1);
  if (gen !== expectGen) throw new ShareRecordError(path, `it says generation ${gen} but is stored as generation ${expectGen}`);
  return { agent: f.str('agent'), name: f.str('name'), gen, at: f.num('at') };
}

function parseBatchFile(path: string, raw: unknown, i: number): ShareBatchFile {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ShareRecordError(path, `file ${i + 1} is not an object`);
  const f = new Fields(path, raw as Obj);
  const sha256 = f.str('sha256');
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new ShareRecordError(path, `file ${i + 1} has no valid sha256`);
  return { sha256, rel: f.str('rel'), safeName: f.str('safeName'), size: f.int('size'), mtimeMs: f.num('mtimeMs'), uploaded: f.bool('uploaded') };
}

export function parseStoredBatch(path: string, bytes: Uint8Array): StoredBatch {
  const f = new Fields(path, objectOf(path, bytes));
  const files = f.o.files;
  if (!Array.isArray(files)) throw new ShareRecordError(path, '"files" should be a list');
  return {
    name: f.str('name'), plan: f.str('plan', true),
    serviceBatchId: f.optStr('serviceBatchId') ?? null, servicePath: f.optStr('servicePath') ?? null,
    files: files.map((x, i) => parseBatchFile(path, x, i)), run: f.optStr('run') ?? null,
    agent: f.str('agent'), gen: f.int('gen', 1),
  };
}
