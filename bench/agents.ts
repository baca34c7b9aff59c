// Shared folders (issue 15): the same 2,000 files dropped into one folder watched by 1, 2 and 3
// `docsync serve` agents sharing it, timed from the drop until every file is done (files/s), and
// the service calls per file by kind, from the sandbox's audit log (each agent has its own token
// of one account, so its calls are its own). Baseline in the same run: one agent on the folder not
// shared (the engine as before issue 15), same sandbox settings, same files.
//
// Every process (sandbox, agents, this script) shares this machine's cores: with 2 cores, more
// agents mean less CPU each, not more throughput. See bench/README.md for what that means.
//   npm run bench:agents [-- --files 2000] [--agents 1,2,3]
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, agentEmail, callKind, serviceReader, shareFlags, startSandboxProcess } from './fleet.js';
import { run } from './lib.js';

const CLI = fileURLToPath(new URL('../electron/cli/main.js', import.meta.url));
const argOf = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
};
const count = Number(argOf('files') ?? 2000);
const fleets = (argOf('agents') ?? '1,2,3').split(',').map(Number).filter((n) => n > 0);
const SHARE = 'bench';
const COORDINATION = 'svc-drive/workspaces/team/docsync-shares';
const NAMES = ['a', 'b', 'c', 'd', 'e'];
const TIMEOUT_MS = 15 * 60_000;

/** A process's CPU time (user + system) from /proc, ms; NaN once it is gone. */
async function cpuMs(pid: number | undefined): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return stat ? (Number(f[11]) + Number(f[12])) * 10 : NaN;
}

interface Result {
  label: string;
  agents: number;
  seconds: number;
  rate: number;
  /** Calls per file by kind, all agents together. */
  calls: Record<string, number>;
  perAgentDone: string;
  agentCpuMsPerFile: number;
}

async function once(root: string, agents: number, shared: boolean): Promise<Result> {
  const label = shared ? `${agents} agent${agents > 1 ? 's' : ''}, shared` : '1 agent, not shared (baseline)';
  const dir = await mkdtemp(join(root, 'run-'));
  const names = NAMES.slice(0, agents);
  const sb = await startSandboxProcess(CLI, join(dir, 'service'), names, ['--page-delay-ms', '0', '--job-delay-ms', '10']);
  const fleet = names.map((n) => new Agent(n, CLI, dir, sb.url));
  try {
    const inbox = join(dir, 'inbox');
    const src = join(dir, 'src');
    await mkdir(inbox);
    await mkdir(src);
    // The same files each round: text invoices of about 20 KB, unique content (none is a duplicate).
    for (let i = 0; i < count; i++) {
      const seed = `${i}`.padStart(6, '0');
      await writeFile(join(src, `scan-${seed}.txt`), `INVOICE\nInvoice Number: INV-${seed}\nTotal: ${i}.50\n${'x'.repeat(20_000)}\n`);
    }
    for (const a of fleet) {
      const flags = shared ? shareFlags({ share: SHARE, coordinationFolder: COORDINATION, leaseS: 60, heartbeatS: 5 }) : [];
      const added = await a.run(['folders', 'add', inbox, '--deployment', 'sandbox-invoices', '--stability', '500', '--max-files', '500', ...flags]);
      if (added.code !== 0) throw new Error(`agent ${a.name}: folders add: ${added.stderr}`);
    }
    await Promise.all(fleet.map((a) => a.serve({ named: shared })));
    const cpu0 = await Promise.all(fleet.map((a) => cpuMs(a.child?.pid)));
    const t0 = performance.now();
    const moved = await run('sh', ['-c', `find "${src}" -mindepth 1 -maxdepth 1 -exec mv -t "${inbox}" {} +`]);
    if (moved.code !== 0) throw new Error(`moving the files in failed: ${moved.stderr}`);
    // Done when every file was reported done (or failed) by some agent: `serve` prints one line per file.
    const finished = (): Set<string> => new Set(fleet.flatMap((a) => a.lines.filter((l) => /^(done|failed)\s/.test(l.text)).map((l) => l.text.replace(/^\S+\s+/, '').replace(/: .*$/, ''))));
    while (finished().size < count) {
      if (performance.now() - t0 > TIMEOUT_MS) throw new Error(`${label}: only ${finished().size} of ${count} files done after ${TIMEOUT_MS / 60_000} min`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = await Promise.all(fleet.map((a) => cpuMs(a.child?.pid)));
    const perAgentDone = fleet.map((a) => `${a.name} ${a.lines.filter((l) => /^done\s/.test(l.text)).length}`).join(', ');
    for (const a of fleet) await a.stop();
    const emails = new Set(names.map(agentEmail));
    const audit = (await serviceReader(sb.url).audit()).filter((e) => emails.has(e.email));
    const calls: Record<string, number> = {};
    for (const e of audit) {
      const k = callKind(e, `${COORDINATION}/${SHARE}`);
      calls[k] = (calls[k] ?? 0) + 1 / count;
    }
    calls.total = audit.length / count;
    const cpu = cpu1.reduce((s, v, i) => s + v - (cpu0[i] as number), 0);
    return { label, agents, seconds, rate: count / seconds, calls, perAgentDone, agentCpuMsPerFile: cpu / count };
  } finally {
    for (const a of fleet) await a.stop();
    await sb.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const root = await mkdtemp(join(tmpdir(), 'docsync-bench-agents-'));
const load0 = loadavg();
const started = new Date();
try {
  const results: Result[] = [await once(root, 1, false)];
  for (const n of fleets) results.push(await once(root, n, true));
  const base = results[0] as Result;
  const load1 = loadavg();
  const kinds = [...new Set(results.flatMap((r) => Object.keys(r.calls)))].filter((k) => k !== 'total').sort();
  const f2 = (n: number | undefined): string => (n ?? 0).toFixed(2);
  console.log(`bench:agents: ${count.toLocaleString('en')} files of 20 KB dropped at once; ${cpus().length} cores shared by the sandbox and every agent`);
  console.log(`  ${started.toISOString()}, load average ${load0.map((l) => l.toFixed(1)).join(' ')} at the start, ${load1.map((l) => l.toFixed(1)).join(' ')} at the end`);
  for (const r of results) {
    console.log(`  ${r.label.padEnd(32)} ${r.seconds.toFixed(1).padStart(6)} s = ${r.rate.toFixed(0).padStart(4)} files/s, ratio to baseline ${(r.rate / base.rate).toFixed(2)}; done by ${r.perAgentDone}; agents' CPU ${r.agentCpuMsPerFile.toFixed(2)} ms/file`);
    console.log(`    calls per file: ${f2(r.calls.total)} total; ${kinds.filter((k) => r.calls[k]).map((k) => `${k} ${f2(r.calls[k])}`).join(', ')}`);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
