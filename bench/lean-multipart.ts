// The leanest multipart upload node can do, as a second baseline for bench/upload.ts: plain
// node:http on keep-alive sockets, one file handle, each part read in 1 MiB chunks into two reused
// buffers, 4 parts in flight, no retries, no checks. What the client costs beyond this is the
// client's own overhead; what this costs beyond curl is node's.
import { open } from 'node:fs/promises';
import { Agent, request } from 'node:http';

const CHUNK = 1024 * 1024;
const IN_FLIGHT = 4;

interface PartRef {
  part_num: number;
  part_id: string;
}

export async function leanMultipart(url: string, token: string, batchId: number, file: string, size: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const json = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const start = await fetch(`${url}/v2/batches/multipart-upload`, { method: 'POST', headers: json, body: JSON.stringify({ batch_id: batchId, filename: 'big.bin', file_size: size }) });
  if (start.status !== 201) throw new Error(`start: ${start.status} ${await start.text()}`);
  const { session_id: session, part_size: partSize } = (await start.json()) as { session_id: string; part_size: number };
  const parts = Math.ceil(size / partSize);
  const refs: PartRef[] = new Array<PartRef>(parts);
  const fh = await open(file);
  let next = 0;

  const sendPart = (i: number, bufs: Buffer[]): Promise<PartRef> =>
    new Promise<PartRef>((resolve, reject) => {
      const from = i * partSize;
      const length = Math.min(partSize, size - from);
      const req = request(`${url}/v2/batches/multipart-upload/sessions/${session}/parts/${i + 1}`, {
        method: 'PUT',
        agent,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/octet-stream', 'Content-Length': length },
      }, (res) => {
        const body: Buffer[] = [];
        res.on('data', (c: Buffer) => body.push(c));
        res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(Buffer.concat(body).toString()) as PartRef) : reject(new Error(`part ${i + 1}: ${res.statusCode}`))));
      });
      req.on('error', reject);
      // A buffer is read into again only once the socket has written it.
      const written: Promise<void>[] = bufs.map(() => Promise.resolve());
      const pump = async (): Promise<void> => {
        for (let off = 0, k = 0; off < length; k++) {
          const slot = k % bufs.length;
          await written[slot];
          const buf = bufs[slot] as Buffer;
          const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, length - off), from + off);
          if (bytesRead === 0) throw new Error('file ended early');
          off += bytesRead;
          written[slot] = new Promise<void>((done) => req.write(buf.subarray(0, bytesRead), () => done()));
          if (req.writableNeedDrain) await new Promise((r) => req.once('drain', r));
        }
        req.end();
      };
      pump().catch((e: unknown) => {
        req.destroy();
        reject(e instanceof Error ? e : new Error(String(e)));
      });
    });

  const worker = async (): Promise<void> => {
    const bufs = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];
    while (next < parts) {
      const i = next++;
      refs[i] = await sendPart(i, bufs);
    }
  };
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    await fh.close();
    agent.destroy();
  }
  const commit = await fetch(`${url}/v2/batches/multipart-upload/sessions/${session}`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ action: 'commit', parts: refs.map((r) => ({ part_num: r.part_num, part_id: r.part_id })) }),
  });
  if (commit.status >= 300) throw new Error(`commit: ${commit.status} ${await commit.text()}`);
}
