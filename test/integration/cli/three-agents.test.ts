/**
 * Issue 15, three real agents on one shared folder: a sandbox in its own process with injected
 * faults, three `docsync serve --no-ui` processes with three data homes, 600 invoices (text and
 * PDF, some the same content under another name) arriving over time. During the run one agent is
 * killed with SIGKILL, another is stopped (SIGSTOP) for longer than the lease and resumed. Then
 * everything is checked on the service (batches and their bytes, runs, the coordination records,
 * the audit log) and in the surviving agents' stores. Nothing is mocked.
 *
 * The lease is 8 s and the heartbeat 1 s (defaults 60 s and 5 s) so that a takeover happens within
 * seconds and the whole test ends in a few minutes; the protocol only compares them to each other.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCliIfNeeded, MAIN } from '../../helpers/build-cli.js';
import { Agent, agentEmail, serviceReader, shareFlags, startSandboxProcess, type AuditEntry, type SandboxProcess } from '../../../bench/fleet.js';
import { invoicePdf, invoiceText } from '../../helpers/pdf-fixtures.js';
import { checkFleetRun, type Moment } from './three-agents-checks.js';

const LEASE_S = 8;
const HEARTBEAT_S = 1;
const FILES = 600;
const WAVES = 20;
const WAVE_GAP_MS = 1200;
const SHARE = 'invoices';
const COORDINATION = 'svc-drive/workspaces/team/docsync-shares';
const C = `${COORDINATION}/${SHARE}`;
const FAULTS = '5xx=0.05,429=0.02,reset=0.01,seed=15';

let root: string;
let sb: SandboxProcess | undefined;
const agents: Agent[] = [];

beforeAll(async () => {
  await buildCliIfNeeded();
  root = await mkdtemp(join(tmpdir(), 'docsync-three-agents-'));
}, 180_000);
afterAll(async () => {
  for (const a of agents) await a.stop();
  await sb?.stop();
  if (root) await rm(root, { recursive: true, force: true });
}, 60_000);

/** The 600 files: every third a PDF, every fifteenth the content of an earlier file under another name. */
async function makeFiles(): Promise<{ name: string; bytes: Buffer; sha: string }[]> {
  const out: { name: string; bytes: Buffer; sha: string }[] = [];
  for (let i = 0; i < FILES; i++) {
    const inv = { invoiceNumber: `INV-${i}`, invoiceDate: '2026-03-01', dueDate: '2026-03-31', total: `${i}.50`, vendor: `Vendor ${i % 37}` };
    let bytes: Buffer;
    let name: string;
    if (i % 15 === 14) {
      const twin = out[i - 7] as { name: string; bytes: Buffer };
      bytes = twin.bytes;
      name = `copy-of-${twin.name}`;
    } else if (i % 3 === 0) {
      bytes = await invoicePdf(inv);
      name = `inv-${i}.pdf`;
    } else {
      bytes = Buffer.from(invoiceText(inv));
      name = `inv-${i}.txt`;
    }
    out.push({ name, bytes, sha: createHash('sha256').update(bytes).digest('hex') });
  }
  return out;
}

/** The heartbeat record of the agent named `name`, read on the service. */
async function heartbeatOf(svc: ReturnType<typeof serviceReader>, name: string): Promise<{ inFlight: number } | null> {
  for (const f of await svc.list(`${C}/agents`)) {
    const r = await svc.record<{ name: string; inFlight: number }>(`${C}/agents/${f}`);
    if (r?.name === name) return r;
  }
  return null;
}

async function until(what: string, timeoutMs: number, fn: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Run alone, as a step of its own in `npm test` (DOCSYNC_THREE_AGENTS=1 npx vitest run <this file>),
// skipped in the main vitest run: its rule "taken over within lease + heartbeat" is a timing rule,
// and needs the machine's two cores for its three agents and the sandbox. Each agent's trace of
// looks and takeovers is kept in test-results/three-agents/. Its run-by-run record is in
// electron/engine/README.md ("Status").
describe.skipIf(!process.env.DOCSYNC_THREE_AGENTS)('three agents on one shared folder, under faults, one killed and one paused', () => {
  it('process every file exactly once, none forgotten, and take over the dead and the paused in time', async () => {
    const files = await makeFiles();
    const names = ['a', 'b', 'c'];
    // Page and job delays shortened (defaults 200 / 250 ms) so 600 files are processed in minutes.
    sb = await startSandboxProcess(MAIN, join(root, 'service'), names, ['--faults', FAULTS, '--page-delay-ms', '20', '--job-delay-ms', '30']);
    const svc = serviceReader(sb.url);
    const inbox = join(root, 'inbox');
    await mkdir(inbox);
    for (const n of names) {
      const a = new Agent(n, MAIN, root, sb.url);
      a.env.DOCSYNC_SHARE_TRACE = '1'; // always traced: a failure in CI can be read from test-results/three-agents
      agents.push(a);
      const added = await a.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--stability', '300', '--min-quiet', '300', '--quiet', '1500', '--max-files', '20', '--rescan', '5000',
        ...shareFlags({ share: SHARE, coordinationFolder: COORDINATION, leaseS: LEASE_S, heartbeatS: HEARTBEAT_S })]);
      expect(added.code, `agent ${n}: folders add: ${added.stderr}`).toBe(0);
    }
    await Promise.all(agents.map((a) => a.serve()));
    const [A, B, Cagent] = agents as [Agent, Agent, Agent];
    const moments: Moment = { killed: 0, stopped: 0, resumed: 0 };

    // Files arrive in waves, each written aside and renamed in (as a scanner does), while the test
    // kills A once it holds work, and stops B (after A's death) while B holds work.
    let waves = 0;
    const writing = (async () => {
      const per = FILES / WAVES;
      for (let w = 0; w < WAVES; w++, waves++) {
        for (const f of files.slice(w * per, (w + 1) * per)) {
          await writeFile(join(inbox, `.${f.name}.part`), f.bytes);
          await rename(join(inbox, `.${f.name}.part`), join(inbox, f.name));
        }
        await new Promise((r) => setTimeout(r, WAVE_GAP_MS));
      }
    })();
    await until('agent a to hold work (heartbeat inFlight >= 3) after wave 5', 60_000, async () => waves >= 5 && ((await heartbeatOf(svc, 'a'))?.inFlight ?? 0) >= 3);
    A.signal('SIGKILL');
    moments.killed = Date.now();
    await A.gone();
    await new Promise((r) => setTimeout(r, 2000));
    await until('agent b to hold work (heartbeat inFlight >= 1)', 60_000, async () => ((await heartbeatOf(svc, 'b'))?.inFlight ?? 0) >= 1);
    B.signal('SIGSTOP');
    moments.stopped = Date.now();
    // Twice the lease: its claims are taken over meanwhile, even when the others' polls (every
    // heartbeat, each taking seconds under load and faults) see the lapse late.
    await new Promise((r) => setTimeout(r, 2 * LEASE_S * 1000));
    B.signal('SIGCONT');
    moments.resumed = Date.now();
    await writing;

    // Done when both survivors have every file in a final state; the service is checked below.
    const contents = new Map<string, string[]>();
    for (const f of files) contents.set(f.sha, [...(contents.get(f.sha) ?? []), f.name]);
    type Row = { path: string; originalName: string; state: string; error: string | null; sha256: string | null };
    let stores: Record<string, Row[]> = {};
    let pending: string[] = [];
    await until('every file to be finished in both surviving agents', 300_000, async () => {
      stores = { b: await B.json<Row[]>(['files']), c: await Cagent.json<Row[]>(['files']) };
      const final = (rows: Row[]): number => new Set(rows.filter((r) => ['done', 'failed', 'skipped'].includes(r.state)).map((r) => r.originalName)).size;
      return final(stores.b!) >= FILES && final(stores.c!) >= FILES;
    }).catch((err: Error) => {
      // Not fatal here: the checks below say which content is stuck and why (its claim history).
      const stuck = (agent: string) => (stores[agent] ?? []).filter((r) => !['done', 'failed', 'skipped'].includes(r.state)).map((r) => `${agent}: ${r.originalName} ${r.state}`);
      pending = [err.message, ...stuck('b'), ...stuck('c')];
      console.log(`b stderr: ${B.stderr.slice(-1500)}\nc stderr: ${Cagent.stderr.slice(-1500)}`);
    });

    // Each agent's whole stderr, for reading a failure: every look, staleness and takeover, timed.
    const logs = join(process.cwd(), 'test-results', 'three-agents');
    await mkdir(logs, { recursive: true });
    for (const a of agents) await writeFile(join(logs, `${a.name}.log`), Buffer.concat(a.stderrAll));
    const audit: AuditEntry[] = await svc.audit();
    const report = await checkFleetRun({ svc, C, contents, stores, audit, moments, leaseMs: LEASE_S * 1000, heartbeatMs: HEARTBEAT_S * 1000, emails: { a: agentEmail('a'), b: agentEmail('b'), c: agentEmail('c') } });
    console.log(report.summary);
    // Every rule at once (the first 25 of each), so one run shows all that broke.
    const broken = Object.entries({ 'the run ended in time': pending, ...report.broken }).filter(([, b]) => b.length).map(([rule, b]) => [`${rule}: ${b.length} broken`, b.slice(0, 25)]);
    expect(Object.fromEntries(broken)).toEqual({});
    // The scenario really happened: work was taken from the killed agent and from the paused one.
    expect(report.takenFrom.a, 'contents taken over from the killed agent').toBeGreaterThan(0);
    expect(report.takenFrom.b, 'contents taken over from the paused agent').toBeGreaterThan(0);
  }, 600_000);
});
