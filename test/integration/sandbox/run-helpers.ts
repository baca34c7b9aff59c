/**
 * Small wire-level steps shared by the sandbox run tests (runs, list/delete, review, persistence).
 * Everything goes over real HTTP through the plain `caller` of test/helpers/sandbox.ts.
 */
import { rm } from 'node:fs/promises';
import { expect } from 'vitest';
import { caller, waitFor } from '../../helpers/sandbox.js';

export type Call = ReturnType<typeof caller>;

export const TERMINAL = ['COMPLETE', 'FAILED', 'CANCELLED'];

/** Creates a batch in `workspace` and uploads each file with PUT; returns the batch id. */
export async function makeBatch(call: Call, files: Record<string, Uint8Array | string>, workspace = 'team', name = 'run input'): Promise<number> {
  const created = await call('POST', '/v2/batches', { name, workspace });
  expect(created.status, created.text).toBe(200);
  const id = created.body.id as number;
  for (const [filename, bytes] of Object.entries(files)) {
    const put = await call('PUT', `/v2/batches/${id}/files/${encodeURIComponent(filename)}`, bytes);
    expect(put.status, put.text).toBe(204);
  }
  return id;
}

/** Starts a deployment run and checks the 202 run record. */
export async function startDeploymentRun(call: Call, deployment: string, body: Record<string, unknown>): Promise<any> {
  const res = await call('POST', `/v2/apps/deployments/${deployment}/runs`, body);
  expect(res.status, res.text).toBe(202);
  return res.body;
}

/** Polls GET run until its status is one of `statuses` (default: any terminal status). */
export async function waitRun(call: Call, id: string, statuses: string[] = TERMINAL, timeoutMs = 15_000): Promise<any> {
  return waitFor(
    async () => {
      const r = await call('GET', `/v2/apps/runs/${id}`);
      expect(r.status, r.text).toBe(200);
      return statuses.includes(r.body.status) ? r.body : null;
    },
    `run ${id} to reach ${statuses.join('|')}`,
    timeoutMs,
  );
}

/** Polls a job at /v2/jobs/{id} until it is terminal; returns its final state. */
export async function waitJob(call: Call, id: string): Promise<{ state: string; message: string }> {
  return waitFor(
    async () => {
      const j = await call('GET', `/v2/jobs/${id}`);
      expect(j.status, j.text).toBe(200);
      return ['COMPLETE', 'FAILED', 'CANCELLED'].includes(j.body.state) ? j.body : null;
    },
    `job ${id}`,
  );
}

/** GET results with the given query flags. */
export async function results(call: Call, runId: string, query: Record<string, string | number | boolean> = {}): Promise<any> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await call('GET', `/v2/apps/runs/${runId}/results${qs ? `?${qs}` : ''}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** A map from field_name to value of one result document. */
export function values(doc: { fields: { field_name: string; value: string }[] }): Record<string, string> {
  return Object.fromEntries(doc.fields.map((f) => [f.field_name, f.value]));
}

/** The result file for an original file name. */
export function fileNamed(res: { files: any[] }, name: string): any {
  const f = res.files.find((x) => x.original_file_name === name);
  if (!f) throw new Error(`no result file ${name}; have ${res.files.map((x) => x.original_file_name).join(', ')}`);
  return f;
}

/** Nanoseconds within a minute of now: a sanity check that a timestamp is ns, not ms or s. */
export function expectNsNearNow(ns: number): void {
  expect(typeof ns).toBe('number');
  expect(Math.abs(ns / 1e6 - Date.now())).toBeLessThan(60_000);
}

/** Closes a sandbox and removes its data folder (a fresh temporary one unless the test gave its own). */
export async function closeAndClean(sb: { close(): Promise<void>; dataDir: string } | undefined): Promise<void> {
  if (!sb) return;
  await sb.close();
  await rm(sb.dataDir, { recursive: true, force: true });
}
