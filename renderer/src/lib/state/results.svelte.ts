/**
 * The Results screen's data, all answered from the local store (works offline): the folder -> run
 * tree, the opened run's files, documents and fields, the selection, full-text search, exports and
 * opening the original (PDF or image) or post-processed PDF.
 */
import type { Args } from '../../../../shared/ui/contract.js';
import type { DocumentView, FieldView, ResultFileView, ResultTreeFolder, RunResultsView, SearchHitView } from '../../../../shared/ui/views.js';
import { SNIFF_BYTES, sniffMediaType, type SourceMediaType } from '../../../../shared/media-type.js';
import { bridge } from '../bridge.js';
import { saveFile } from '../download.js';
import type { ResultsTarget } from './nav.svelte.js';

const SEARCH_DELAY_MS = 180;
const SEARCH_LIMIT = 200;
/** Runs whose results stay in memory for the tree (each may hold many fields). */
const RUN_CACHE = 24;

export type Which = 'original' | 'processed';
/** csv: one row per field; csv-wide: one row per document, one column per field; json. */
export type ExportFormat = Args<'export.run'>['format'];

export interface ViewerFile {
  title: string;
  name: string;
  mime: string;
  /** What the bytes are (the viewer's decoder). */
  type: SourceMediaType;
  bytes: Uint8Array;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const folderKey = (folderId: number | null): string => `folder:${folderId ?? 'hand'}`;
export const runKey = (runId: number): string => `run:${runId}`;
export const fileKey = (resultFileId: number): string => `file:${resultFileId}`;

class ResultsState {
  tree = $state.raw<ResultTreeFolder[]>([]);
  treeLoaded = $state(false);
  treeError = $state<string | null>(null);
  /** Loaded runs by local run id (the opened one and those expanded in the tree). */
  runs = $state.raw<ReadonlyMap<number, RunResultsView>>(new Map());
  runErrors = $state.raw<ReadonlyMap<number, string>>(new Map());
  loadingRun = $state<number | null>(null);
  expanded = $state.raw<ReadonlySet<string>>(new Set());

  runId = $state<number | null>(null);
  fileId = $state<number | null>(null);
  documentId = $state<number | null>(null);
  fieldId = $state<number | null>(null);

  query = $state('');
  hits = $state.raw<SearchHitView[]>([]);
  searching = $state(false);
  searchError = $state<string | null>(null);
  /** The query the hits belong to (they lag the typed query while a search runs). */
  searchedFor = $state('');

  /** A PDF or image shown in the in-app viewer (the host could not open it with an app). */
  viewer = $state.raw<ViewerFile | null>(null);
  busy = $state<string | null>(null);
  actionError = $state<string | null>(null);

  run: RunResultsView | null = $derived(this.runId === null ? null : (this.runs.get(this.runId) ?? null));
  file: ResultFileView | null = $derived(this.run?.files.find((f) => f.id === this.fileId) ?? null);
  document: DocumentView | null = $derived(this.file?.documents.find((d) => d.id === this.documentId) ?? null);
  field: FieldView | null = $derived(this.document?.fields.find((f) => f.id === this.fieldId) ?? null);

  #consumed: ResultsTarget | null = null;
  #searchSeq = 0;
  #searchTimer: ReturnType<typeof setTimeout> | undefined;
  #treeTimer: ReturnType<typeof setTimeout> | undefined;
  #openSeq = 0;

  /** Loads the tree and follows run events; returns the unsubscribe for the view's $effect. */
  start(): () => void {
    void this.loadTree();
    const off = bridge.on('run', (run) => {
      clearTimeout(this.#treeTimer);
      this.#treeTimer = setTimeout(() => void this.loadTree(), 400);
      // Results of a loaded run may have arrived: refresh it when its view is stale.
      const have = this.runs.get(run.id);
      if (have && (have.run.status !== run.status || have.run.resultsStored !== run.resultsStored || have.run.reviewWaiting !== run.reviewWaiting)) {
        void this.loadRun(run.id, true);
      }
    });
    return () => {
      off();
      clearTimeout(this.#treeTimer);
      clearTimeout(this.#searchTimer);
    };
  }

  async loadTree(): Promise<void> {
    try {
      // An empty tree (the screen opened before any results) is no look yet: the first results get one.
      const firstLook = !this.treeLoaded || this.tree.length === 0;
      this.tree = await bridge.call('results.tree', {});
      this.treeError = null;
      if (firstLook) {
        // First look: the first folder open, and the way down to what another screen opened.
        const first = this.tree[0];
        if (first) this.expanded = new Set([...this.expanded, folderKey(first.folderId)]);
        if (this.runId !== null) this.reveal();
      }
    } catch (err) {
      this.treeError = message(err);
    } finally {
      this.treeLoaded = true;
    }
  }

  async loadRun(runId: number, force = false): Promise<RunResultsView | null> {
    const have = this.runs.get(runId);
    if (have && !force) return have;
    this.loadingRun = runId;
    try {
      const view = await bridge.call('results.run', { runId });
      const next = new Map(this.runs);
      next.delete(runId);
      next.set(runId, view);
      // Forget the least recently loaded runs, never the opened one.
      for (const id of next.keys()) {
        if (next.size <= RUN_CACHE) break;
        if (id !== this.runId && id !== runId) next.delete(id);
      }
      this.runs = next;
      if (this.runErrors.has(runId)) this.runErrors = without(this.runErrors, runId);
      return view;
    } catch (err) {
      this.runErrors = new Map(this.runErrors).set(runId, message(err));
      return null;
    } finally {
      if (this.loadingRun === runId) this.loadingRun = null;
    }
  }

  /** Opens what another screen asked for, once: coming back to the screen keeps the selection. */
  consume(target: ResultsTarget): void {
    if (target === this.#consumed) return;
    this.#consumed = target;
    if (target.runId !== undefined || target.fileId !== undefined) void this.open(target);
  }

  /**
   * Opens a run (and a file, document, field in it). `fileId` is a local file's id (what Activity
   * knows); a search hit names its document instead, whose id is unique across runs.
   */
  async open(target: ResultsTarget): Promise<void> {
    const seq = ++this.#openSeq;
    let runId = target.runId;
    let documentId = target.documentId;
    if (runId === undefined && target.fileId !== undefined) {
      try {
        const found = await bridge.call('results.file', { fileId: target.fileId });
        const latest = found[found.length - 1];
        if (!latest) return void (this.actionError = 'That file has no results yet.');
        runId = latest.runId;
        documentId ??= latest.documents[0]?.id;
      } catch (err) {
        return void (this.actionError = message(err));
      }
    }
    if (runId === undefined || seq !== this.#openSeq) return;
    // The selection changes once the run is at hand, so panes showing the same file stay as they are.
    if (this.runId !== runId) this.fileId = this.documentId = this.fieldId = null;
    this.runId = runId;
    this.actionError = null;
    const view = await this.loadRun(runId);
    if (!view || seq !== this.#openSeq) return;
    const file =
      (documentId !== undefined ? view.files.find((f) => f.documents.some((d) => d.id === documentId)) : undefined) ??
      (target.fileId !== undefined ? view.files.find((f) => f.fileId === target.fileId) : undefined) ??
      view.files[0];
    this.fileId = file?.id ?? null;
    const doc = file?.documents.find((d) => d.id === documentId) ?? file?.documents[0];
    this.documentId = doc?.id ?? null;
    this.fieldId = target.fieldId !== undefined && doc?.fields.some((f) => f.id === target.fieldId) ? target.fieldId : null;
    this.reveal();
  }

  openHit(hit: SearchHitView): Promise<void> {
    return this.open({ runId: hit.runId, documentId: hit.documentId, ...(hit.fieldId === null ? {} : { fieldId: hit.fieldId }) });
  }

  /** Selects a file (its first document) or one of its documents, in a loaded run. */
  select(runId: number, file: ResultFileView, doc: DocumentView | undefined = file.documents[0]): void {
    ++this.#openSeq;
    this.runId = runId;
    this.fileId = file.id;
    this.documentId = doc?.id ?? null;
    this.fieldId = null;
  }

  selectField(id: number | null): void {
    this.fieldId = id;
  }

  /** Expands the tree down to the opened file. */
  reveal(): void {
    const next = new Set(this.expanded);
    const folder = this.tree.find((f) => f.runs.some((r) => r.id === this.runId));
    if (folder) next.add(folderKey(folder.folderId));
    if (this.runId !== null) next.add(runKey(this.runId));
    // A file opens in the tree only when it has documents to choose from.
    if (this.fileId !== null && (this.file?.documents.length ?? 0) > 1) next.add(fileKey(this.fileId));
    this.expanded = next;
  }

  toggle(key: string, open?: boolean): void {
    const isOpen = this.expanded.has(key);
    const want = open ?? !isOpen;
    if (want === isOpen) return;
    const next = new Set(this.expanded);
    if (want) next.add(key);
    else next.delete(key);
    this.expanded = next;
    if (want && key.startsWith('run:')) void this.loadRun(Number(key.slice(4)));
  }

  setQuery(q: string): void {
    this.query = q;
    clearTimeout(this.#searchTimer);
    if (!q.trim()) {
      ++this.#searchSeq;
      this.hits = [];
      this.searchedFor = '';
      this.searching = false;
      this.searchError = null;
      return;
    }
    this.searching = true;
    this.#searchTimer = setTimeout(() => void this.#search(q), SEARCH_DELAY_MS);
  }

  async #search(q: string): Promise<void> {
    const seq = ++this.#searchSeq;
    try {
      const hits = await bridge.call('search', { query: q, limit: SEARCH_LIMIT });
      if (seq !== this.#searchSeq) return;
      this.hits = hits;
      this.searchedFor = q;
      this.searchError = null;
    } catch (err) {
      if (seq === this.#searchSeq) this.searchError = message(err);
    } finally {
      if (seq === this.#searchSeq) this.searching = false;
    }
  }

  async exportRun(format: ExportFormat): Promise<void> {
    if (this.runId === null) return;
    await this.#act(`Exporting ${format === 'json' ? 'JSON' : 'CSV'}…`, async () => {
      const f = await bridge.call('export.run', { runId: this.runId as number, format });
      saveFile(f.name, f.mime, f.text);
    });
  }

  /**
   * Saves the results of every run a folder and a date range select as one file. Resolves to the
   * error to show (nothing found, the engine's refusal), or null once saved.
   */
  async exportSelection(sel: Args<'export.selection'>): Promise<string | null> {
    try {
      const f = await bridge.call('export.selection', sel);
      saveFile(f.name, f.mime, f.text);
      return null;
    } catch (err) {
      return message(err);
    }
  }

  /**
   * Opens with the OS app when the host can (Electron); else shows a PDF, PNG, JPEG or TIFF here
   * (a browser cannot show a TIFF by itself), or saves anything else.
   */
  async openFile(which: Which, ids: { fileId?: number; documentId?: number }, title: string): Promise<void> {
    await this.#act(which === 'original' ? 'Opening the original…' : 'Opening the processed PDF…', async () => {
      const ext = await bridge.call('files.openExternal', { which, ...ids });
      if (ext.opened) return;
      const content = await bridge.call('files.content', { which, ...ids });
      const type = sniffMediaType(content.bytes.subarray(0, SNIFF_BYTES));
      if (type) this.viewer = { title, type, ...content };
      else saveFile(content.name, content.mime, content.bytes);
    });
  }

  /** The original's bytes for the page preview. */
  original(fileId: number): Promise<{ name: string; mime: string; bytes: Uint8Array }> {
    return bridge.call('files.content', { which: 'original', fileId });
  }

  closeViewer(): void {
    this.viewer = null;
  }

  async #act(label: string, fn: () => Promise<void>): Promise<void> {
    this.busy = label;
    this.actionError = null;
    try {
      await fn();
    } catch (err) {
      this.actionError = message(err);
    } finally {
      this.busy = null;
    }
  }
}

function without<K, V>(m: ReadonlyMap<K, V>, k: K): Map<K, V> {
  const next = new Map(m);
  next.delete(k);
  return next;
}

export const results = new ResultsState();
