/**
 * Batching rule (issues 4 and 14): files that become ready together go into one batch. The open batch
 * closes when no file has joined it for its wait, as soon as it holds `maxFiles` files, or before a file
 * would take it past `maxBytes` (a file larger than `maxBytes` on its own makes a batch of one).
 * The wait adapts to how files arrive: `minQuietMs` after the last file, or twice the longest gap
 * between the batch's files so far when that is longer, never more than `quietMs`. A single scan waits
 * only `minQuietMs`; a burst (gaps of milliseconds) closes `minQuietMs` after its last file; a stream
 * that slows down keeps its batch open as long as its gaps stay under the wait, up to `quietMs`.
 * Pure: the caller passes the time to every call and calls `tick` at `nextDeadline()`.
 */
import type { FolderBatching } from '../../../shared/hot-folder.js';

export interface BatchFile {
  path: string;
  size: number;
}

export type CloseReason = 'quiet' | 'maxFiles' | 'maxBytes' | 'flush';

export interface ClosedBatch<F extends BatchFile = BatchFile> {
  /** 1, 2, ... per planner. */
  seq: number;
  files: F[];
  bytes: number;
  reason: CloseReason;
  openedAt: number;
  closedAt: number;
}

export class BatchPlanner<F extends BatchFile = BatchFile> {
  private open = new Map<string, F>();
  private bytes = 0;
  private openedAt = 0;
  private lastAddAt = 0;
  /** Longest gap between two files of the open batch. */
  private longestGap = 0;
  private seq = 0;

  constructor(private readonly rule: FolderBatching) {
    const ok = rule.minQuietMs >= 0 && rule.quietMs >= rule.minQuietMs && rule.maxFiles >= 1 && rule.maxBytes >= 1;
    if (!ok) throw new RangeError(`bad batching rule ${JSON.stringify(rule)}`);
  }

  /**
   * A file became ready at `now`. Returns the batches this closes (closing on quiet first, when the open
   * batch's period already ran out). A path already in the open batch is replaced (its newer version).
   */
  add(file: F, now: number): ClosedBatch<F>[] {
    const closed = this.tick(now);
    const prev = this.open.get(file.path);
    if (prev) {
      this.open.delete(file.path);
      this.bytes -= prev.size;
    }
    if (this.open.size > 0 && this.bytes + file.size > this.rule.maxBytes) closed.push(this.close('maxBytes', now));
    if (this.open.size === 0) {
      this.openedAt = now;
      this.longestGap = 0;
    } else this.longestGap = Math.max(this.longestGap, now - this.lastAddAt);
    this.open.set(file.path, file);
    this.bytes += file.size;
    this.lastAddAt = now;
    if (this.open.size >= this.rule.maxFiles) closed.push(this.close('maxFiles', now));
    else if (this.bytes >= this.rule.maxBytes) closed.push(this.close('maxBytes', now));
    return closed;
  }

  /** The open batch holds this path. */
  has(path: string): boolean {
    return this.open.has(path);
  }

  /** Take a file out of the open batch (it vanished or changed before the batch closed). */
  remove(path: string): boolean {
    const prev = this.open.get(path);
    if (!prev) return false;
    this.open.delete(path);
    this.bytes -= prev.size;
    return true;
  }

  /** Close the open batch if its quiet period has run out by `now`. */
  tick(now: number): ClosedBatch<F>[] {
    const deadline = this.nextDeadline();
    return deadline !== undefined && now >= deadline ? [this.close('quiet', now)] : [];
  }

  /** Close the open batch now, whatever its state (shutdown, "process now"). */
  flush(now: number): ClosedBatch<F>[] {
    return this.open.size > 0 ? [this.close('flush', now)] : [];
  }

  /** How long the open batch waits after its last file: adapts to the gaps between its files. */
  waitMs(): number {
    return Math.min(this.rule.quietMs, Math.max(this.rule.minQuietMs, 2 * this.longestGap));
  }

  /** When the open batch closes if nothing else joins it; undefined when no batch is open. */
  nextDeadline(): number | undefined {
    return this.open.size > 0 ? this.lastAddAt + this.waitMs() : undefined;
  }

  /** Files of the open batch, in arrival order. */
  pending(): F[] {
    return [...this.open.values()];
  }

  private close(reason: CloseReason, now: number): ClosedBatch<F> {
    const batch: ClosedBatch<F> = { seq: ++this.seq, files: [...this.open.values()], bytes: this.bytes, reason, openedAt: this.openedAt, closedAt: now };
    this.open = new Map();
    this.bytes = 0;
    this.longestGap = 0;
    return batch;
  }
}
