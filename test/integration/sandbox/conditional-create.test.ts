/**
 * Issue 15: agents of a share coordinate through one primitive, the conditional create
 * (`PUT /v2/files/{path}` with `If-None-Match: *`). It must be atomic under creates racing from
 * several processes: exactly one 201, every other 412, and the stored bytes are the winner's.
 * The racers are real child processes (test/helpers/put-racer.mjs) on warmed keep-alive
 * connections, released together by one line on their stdin.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../sandbox/index.js';
import { ROOT } from '../../helpers/build-cli.js';
import { caller, sandbox } from '../../helpers/sandbox.js';

const RACER = path.join(ROOT, 'test/helpers/put-racer.mjs');
const PROCESSES = 4;
const PER_PROCESS = 5; // 4 x 5 = 20 creates per path

let sb: RunningSandbox;
let admin: ReturnType<typeof caller>;

beforeAll(async () => {
  sb = await sandbox();
  admin = caller(sb.url, 'admin-token');
});
afterAll(async () => {
  await sb?.close();
  if (sb) await rm(sb.dataDir, { recursive: true, force: true });
});

interface Result {
  path: string;
  body: string;
  status: number;
}

function firstLine(child: ChildProcessWithoutNullStreams, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`racer exited (${code}) before ${what}: ${err}`)));
  });
}

/** Races PROCESSES x PER_PROCESS conditional creates of `file` (a service path), each with its own body. */
async function race(file: string, tag: string): Promise<Result[]> {
  const wire = `/v2/files/${file.split('/').map(encodeURIComponent).join('/')}`;
  const children = Array.from({ length: PROCESSES }, (_, p) => {
    const puts = Array.from({ length: PER_PROCESS }, (_, i) => ({ path: wire, body: JSON.stringify({ agent: `${tag}-racer-${p}-${i}`, at: Date.now() }) }));
    return spawn(process.execPath, [RACER, JSON.stringify({ base: sb.url, token: 'admin-token', puts })]);
  });
  try {
    // Every racer has its sockets open before any is released.
    expect(await Promise.all(children.map((c) => firstLine(c, 'ready')))).toEqual(Array(PROCESSES).fill('ready'));
    const answers = children.map((c) => firstLine(c, 'its results'));
    for (const c of children) c.stdin.write('go\n');
    return (await Promise.all(answers)).flatMap((line) => JSON.parse(line) as Result[]);
  } finally {
    for (const c of children) c.kill('SIGKILL');
  }
}

async function expectOneWinner(file: string, results: Result[]): Promise<void> {
  expect(results).toHaveLength(PROCESSES * PER_PROCESS);
  const won = results.filter((r) => r.status === 201);
  const refused = results.filter((r) => r.status === 412);
  const other = results.filter((r) => r.status !== 201 && r.status !== 412);
  expect(other, `${file}: answers other than 201/412`).toEqual([]);
  expect(won, `${file}: exactly one create must win`).toHaveLength(1);
  expect(refused).toHaveLength(PROCESSES * PER_PROCESS - 1);
  const stored = await admin('GET', `/v2/files/${file}?expect-node-type=file`);
  expect(stored.status).toBe(200);
  expect(stored.text, `${file}: the stored bytes are the winner's`).toBe(won[0]!.body);
}

describe('conditional create (If-None-Match: *) under 20 racing creates from 4 processes', () => {
  it('on five fresh paths (their folders created by the race too): one 201 each, the rest 412, the winner\'s bytes stored', async () => {
    for (let n = 1; n <= 5; n++) {
      const file = `svc-drive/race/claims/sha-${n}/1.json`;
      await expectOneWinner(file, await race(file, `fresh${n}`));
    }
  });

  it('takeover shape: generation 1 exists, 20 racing creates of generation 2: one 201, and generation 1 is untouched', async () => {
    for (let n = 1; n <= 3; n++) {
      const dir = `svc-drive/race/takeover/sha-${n}`;
      const first = await admin('PUT', `/v2/files/${dir}/1.json`, '{"agent":"dead","gen":1}', { 'If-None-Match': '*' });
      expect(first.status).toBe(201);
      await expectOneWinner(`${dir}/2.json`, await race(`${dir}/2.json`, `takeover${n}`));
      expect((await admin('GET', `/v2/files/${dir}/1.json?expect-node-type=file`)).text).toBe('{"agent":"dead","gen":1}');
      const listing = await admin<{ nodes: { name: string }[] }>('GET', `/v2/files/${dir}?expect-node-type=folder`);
      expect(listing.body.nodes.map((x) => x.name)).toEqual(['1.json', '2.json']);
    }
  });

  it('leaves no temporary upload behind, won or lost', async () => {
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(sb.core.tmpDir)).toEqual([]);
  });
});
