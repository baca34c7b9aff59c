/**
 * A drop on the window, from the files landing to their rows in Activity: which deployment or app they
 * go to, the staging of their bytes when the host has no paths (a browser), and the upload request.
 */
import { MAX_STAGED_BYTES } from '../../../../shared/ui/contract.js';
import type { FolderTarget } from '../../../../shared/ui/views.js';
import { bridge } from '../bridge.js';
import { collectFiles, newDropId, type Drop } from '../drop.js';
import { formatBytes, plural } from '../format.js';
import { app, message } from './app.svelte.js';
import { nav } from './nav.svelte.js';

export interface Staging {
  done: number;
  total: number;
  sentBytes: number;
  totalBytes: number;
  current: string;
}

const LAST_TARGET_KEY = 'docsync.drop.target';

class DropState {
  /** Files are being dragged over the window. */
  dragging = $state(false);
  /** A drop waiting for its target (the dialog is open while set). */
  pending = $state.raw<Drop | null>(null);
  staging = $state.raw<Staging | null>(null);
  uploading = $state(false);
  error = $state<string | null>(null);
  private stop = false;

  landed(drop: Drop): void {
    if (this.uploading) {
      app.notify('warn', 'Still uploading the last drop; drop again when it is done.');
      return;
    }
    this.pending = drop;
    this.error = null;
  }

  /** Closes the dialog; a staging in progress stops after the file it is sending. */
  dismiss(): void {
    if (this.uploading) this.stop = true;
    else this.pending = null;
  }

  lastTarget(): FolderTarget | null {
    try {
      const t = JSON.parse(localStorage.getItem(LAST_TARGET_KEY) ?? 'null') as FolderTarget | null;
      return t && (t.type === 'deployment' || t.type === 'app') && typeof t.id === 'string' ? t : null;
    } catch {
      return null;
    }
  }

  async upload(target: FolderTarget): Promise<void> {
    const drop = this.pending;
    if (!drop || this.uploading) return;
    this.uploading = true;
    this.stop = false;
    this.error = null;
    try {
      localStorage.setItem(LAST_TARGET_KEY, JSON.stringify(target));
      const files = drop.paths ? await bridge.call('upload.paths', { paths: drop.paths, target }) : await this.stageAll(drop, target);
      if (files === null) return;
      this.pending = null;
      app.notify('info', `${plural(files.length, 'file')} queued for ${target.type === 'app' ? 'app' : 'deployment'} ${target.id}.`);
      nav.go('activity');
    } catch (e) {
      this.error = message(e);
    } finally {
      this.uploading = false;
      this.staging = null;
    }
  }

  /** Browser: sends each file's bytes, then asks for the upload. Null when stopped by the person. */
  private async stageAll(drop: Drop, target: FolderTarget) {
    const all = await collectFiles(drop);
    const tooBig = all.filter((f) => f.file.size > MAX_STAGED_BYTES);
    const files = all.filter((f) => f.file.size <= MAX_STAGED_BYTES);
    if (tooBig.length > 0) {
      const names = tooBig.slice(0, 3).map((f) => f.relPath).join(', ');
      app.notify('warn', `${plural(tooBig.length, 'file')} over ${formatBytes(MAX_STAGED_BYTES)} left out (${names}${tooBig.length > 3 ? ', …' : ''}): put large files in a hot folder instead.`);
    }
    if (files.length === 0) throw new Error(all.length === 0 ? 'the drop holds no files (empty folders are skipped)' : 'no file small enough to upload from the browser');
    const dropId = newDropId();
    const s: Staging = { done: 0, total: files.length, sentBytes: 0, totalBytes: files.reduce((n, f) => n + f.file.size, 0), current: '' };
    this.staging = { ...s };
    // Whatever was handed over of a drop that is stopped or fails halfway is deleted again.
    const discard = (): Promise<unknown> => bridge.call('upload.discard', { dropId }).catch(() => undefined);
    try {
      for (const f of files) {
        if (this.stop) {
          await discard();
          this.pending = null;
          app.notify('info', 'Upload stopped; nothing was queued.');
          return null;
        }
        this.staging = { ...s, current: f.relPath };
        const bytes = new Uint8Array(await f.file.arrayBuffer());
        await bridge.call('upload.stage', { dropId, relPath: f.relPath, bytes });
        s.done++;
        s.sentBytes += f.file.size;
        this.staging = { ...s, current: f.relPath };
      }
      // Refused (signed out, say): the staged copies are of no use to a later try, which stages anew.
      return await bridge.call('upload.staged', { dropId, target });
    } catch (e) {
      await discard();
      throw e;
    }
  }
}

export const drop = new DropState();
