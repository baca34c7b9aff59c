/**
 * The hot folders as the engine reports them (counts, last activity, problems), refreshed by the
 * `folders` event. Used by the Hot folders screen and by Activity's folder filter and folder column.
 */
import type { FolderView } from '../../../../shared/ui/views.js';
import { bridge } from '../bridge.js';
import { basename } from '../format.js';
import { message } from './app.svelte.js';

/** At most one reload of the list per this long while files move. */
const STATUS_RELOAD_MS = 1500;

class FoldersState {
  list = $state.raw<FolderView[]>([]);
  loaded = $state(false);
  error = $state<string | null>(null);
  /**
   * Offers to retry the files that failed because of a folder's old settings (folder id -> how
   * many), made after a save. Held here, not on the screen, so leaving Hot folders keeps them: each
   * goes when the person retries or says "Not now", or once none of those files is failed any more.
   */
  retryOffers = $state.raw<ReadonlyMap<number, number>>(new Map());

  private byId = $derived(new Map(this.list.map((f) => [f.id, f])));
  private started = false;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;

  start(): () => void {
    if (this.started) return () => {};
    this.started = true;
    const offs = [
      bridge.on('folders', (list) => {
        this.list = list;
        this.loaded = true;
      }),
      // Counts and last activity change with every file; `folders` fires only when folders do.
      bridge.on('status', () => {
        this.reloadTimer ??= setTimeout(() => {
          this.reloadTimer = undefined;
          void this.load();
        }, STATUS_RELOAD_MS);
      }),
    ];
    void this.load();
    return () => {
      for (const off of offs) off();
      clearTimeout(this.reloadTimer);
      this.reloadTimer = undefined;
      this.started = false;
    };
  }

  async load(): Promise<void> {
    try {
      this.list = await bridge.call('folders.list', {});
      this.error = null;
    } catch (e) {
      this.error = message(e);
    } finally {
      this.loaded = true;
    }
    // Files moved (this runs on `status`): an offer whose files are all retried or gone goes too.
    if (this.retryOffers.size > 0) await this.recountOffers();
  }

  /** Offers a retry of `count` files of the folder (none: takes its offer away). */
  offerRetry(id: number, count: number): void {
    const next = new Map(this.retryOffers);
    if (count > 0) next.set(id, count);
    else next.delete(id);
    this.retryOffers = next;
  }

  dismissOffer(id: number): void {
    if (this.retryOffers.has(id)) this.offerRetry(id, 0);
  }

  /** Retries the offered files with the folder's current settings; the offer goes either way but a failed call. */
  async retryOffered(id: number): Promise<{ retried: number; problems: string[] }> {
    const r = await bridge.call('folders.retryFailed', { id });
    this.dismissOffer(id);
    return r;
  }

  private async recountOffers(): Promise<void> {
    for (const id of [...this.retryOffers.keys()]) {
      if (!this.byId.has(id)) {
        this.dismissOffer(id);
        continue;
      }
      try {
        const { count } = await bridge.call('folders.failedBySettings', { id });
        // Dismissed or retried while the count was on its way: stays gone.
        if (this.retryOffers.has(id)) this.offerRetry(id, count);
      } catch {
        // Not counted this time: the offer stays as it was.
      }
    }
  }

  get(id: number | null): FolderView | undefined {
    return id === null ? undefined : this.byId.get(id);
  }

  /** Short name of a file's folder for lists: the folder's last segment, or "Dropped in" for manual uploads. */
  label(id: number | null): string {
    if (id === null || id === 0) return 'Dropped in';
    const f = this.byId.get(id);
    return f ? basename(f.path) : `Folder ${id}`;
  }

  /** Adds or updates; throws the engine's one-line validation message. */
  async save(id: number | null, settings: unknown): Promise<FolderView> {
    const saved = id === null ? await bridge.call('folders.add', { settings }) : await bridge.call('folders.update', { id, settings });
    this.list = [...this.list.filter((f) => f.id !== saved.id), saved].sort((a, b) => a.id - b.id);
    return saved;
  }

  async remove(id: number): Promise<void> {
    await bridge.call('folders.remove', { id });
    this.list = this.list.filter((f) => f.id !== id);
    this.dismissOffer(id);
  }
}

export const folders = new FoldersState();
