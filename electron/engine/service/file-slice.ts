/**
 * Reading a byte range of a local file for upload, with a guard against torn uploads: the file's
 * size and mtime are checked against what was recorded when the upload began, and the last chunk
 * of the range is held back until that check passes. A file that changed, shrank or vanished
 * makes the stream fail with FileChangedError before the request body is complete, so the service
 * never receives a whole body made of two versions of the file.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { FileChangedError } from './errors.js';

export interface FileIdentity {
  size: number;
  mtimeMs: number;
  /**
   * The file the caller checked (a hot folder's link rule, issue 26): the opened file must be this
   * one, so a path swapped for a link after the check cannot send another file's bytes.
   */
  dev?: number;
  ino?: number;
}

const CHUNK = 1024 * 1024;

/**
 * Read buffers handed back once the socket has written them (FileSlice.recycle). Fresh 1 MiB
 * buffers for every read cost page faults and GC (measured: reading is 2-3x the CPU, and the
 * client's user CPU about doubles); a few reused ones cost neither. Bounded: buffers beyond
 * MAX_FREE are left to the GC, so memory stays at what the uploads in flight hold.
 */
const MAX_FREE = 16;
const free: ArrayBuffer[] = [];
/** Buffers lent out and not yet given back: only these may be recycled, each once. */
const lent = new WeakSet<ArrayBuffer>();

function takeChunk(): Buffer {
  const ab = free.pop() ?? new ArrayBuffer(CHUNK);
  lent.add(ab);
  return Buffer.from(ab, 0, CHUNK);
}

export async function identify(path: string): Promise<FileIdentity> {
  const st = await stat(path);
  if (!st.isFile()) throw new Error(`${path} is not a regular file`);
  return { size: st.size, mtimeMs: st.mtimeMs };
}

/** Throws FileChangedError when the file at `path` is no longer the one described by `expect`. */
export async function checkUnchanged(path: string, expect: FileIdentity): Promise<void> {
  const st = await stat(path).catch(() => null);
  if (!st) throw new FileChangedError(`${path} disappeared during the upload`);
  if (st.size !== expect.size) throw new FileChangedError(`${path} changed during the upload: its size went from ${expect.size} to ${st.size} bytes`);
  if (st.mtimeMs !== expect.mtimeMs) {
    throw new FileChangedError(`${path} changed during the upload: it was modified at ${new Date(st.mtimeMs).toISOString()}, after the upload began`);
  }
}

/** Bytes [start, start + length) of `path`; memory use is one chunk (1 MiB: fewer reads per 10 MiB part) at a time. */
export class FileSlice extends Readable {
  private fh: FileHandle | undefined;
  private pos = 0;

  constructor(
    private readonly path: string,
    private readonly start: number,
    private readonly length: number,
    private readonly expect: FileIdentity,
    /** Run right before the last chunk goes (the service acts once the body is whole); a throw cuts the body short. */
    private readonly beforeLast?: () => void,
  ) {
    super({ highWaterMark: CHUNK });
  }

  override _construct(callback: (error?: Error | null) => void): void {
    open(this.path, 'r').then(
      async (fh) => {
        this.fh = fh;
        if (this.expect.ino !== undefined) {
          const st = await fh.stat().catch(() => null);
          if (st?.ino !== this.expect.ino || st.dev !== this.expect.dev) return callback(new FileChangedError(`${this.path} is no longer the file that was checked before the upload`));
        }
        callback();
      },
      (err: NodeJS.ErrnoException) => callback(err.code === 'ENOENT' ? new FileChangedError(`${this.path} disappeared during the upload`) : err),
    );
  }

  override _read(): void {
    void this.readChunk();
  }

  private async readChunk(): Promise<void> {
    try {
      const remaining = this.length - this.pos;
      if (remaining === 0) {
        await checkUnchanged(this.path, this.expect);
        this.beforeLast?.();
        this.push(null);
        return;
      }
      const n = Math.min(remaining, CHUNK);
      // Small files keep exact-size buffers; a large range reads into reusable chunks.
      const buf = this.length >= CHUNK ? takeChunk() : Buffer.allocUnsafe(n);
      const { bytesRead } = await (this.fh as FileHandle).read(buf, 0, n, this.start + this.pos);
      if (bytesRead === 0) {
        throw new FileChangedError(`${this.path} changed during the upload: it ended at ${this.start + this.pos} bytes, before the ${this.expect.size} recorded`);
      }
      this.pos += bytesRead;
      // The last chunk goes out only once the file is known to be the one the upload began with.
      if (this.pos === this.length) {
        await checkUnchanged(this.path, this.expect);
        this.beforeLast?.();
      }
      this.push(buf.subarray(0, bytesRead));
      if (this.pos === this.length) this.push(null);
    } catch (err) {
      this.destroy(err as Error);
    }
  }

  /**
   * Gives back a chunk this stream pushed, once nothing refers to it any more (the socket has
   * written it). Chunks not given back are simply garbage-collected.
   */
  static recycle(chunk: Buffer): void {
    const ab = chunk.buffer;
    if (!(ab instanceof ArrayBuffer) || !lent.has(ab)) return;
    lent.delete(ab);
    if (free.length < MAX_FREE) free.push(ab);
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    const fh = this.fh;
    this.fh = undefined;
    if (!fh) return callback(err);
    fh.close().then(
      () => callback(err),
      () => callback(err),
    );
  }
}

/**
 * A file's bytes read by the caller in one consistent snapshot (size and mtime the same before and
 * after the read), sent as they are: no reads, looks or handles of its own. The guard runs right
 * before the bytes go, as FileSlice's before its last chunk.
 */
export class BytesBody extends Readable {
  private sent = false;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly beforeLast?: () => void,
  ) {
    super();
  }

  override _read(): void {
    if (this.sent) return;
    this.sent = true;
    try {
      this.beforeLast?.();
    } catch (err) {
      this.destroy(err as Error);
      return;
    }
    if (this.bytes.length > 0) this.push(Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength));
    this.push(null);
  }
}
