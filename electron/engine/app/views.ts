/** Store rows -> the UI's views (shared/ui/views.ts). Pure mapping, plus the raw-page lookups it needs. */
import { zeroCounts } from '../../../shared/file-states.js';
import { validateFolderSettings } from '../../../shared/hot-folder.js';
import type {
  DocumentView, FieldView, FileView, FolderView, PageLayoutView, ResultFileView, RunView, SearchHitView, SourceBox,
} from '../../../shared/ui/views.js';
import type { OriginalOnDisk } from './original-type.js';
import type { QueueRow, RunListRow } from '../store/browse.js';
import type { DocumentRow, FieldRow, FileRow, FolderRow, ResultFileRow, RunRow, SearchHit, Store } from '../store/index.js';

/** `batchClosesMs`: when the open batch the file waits in closes (the engine knows; see Engine.batchClosesAt). */
export const queueView = (r: QueueRow, batchClosesMs: number | null = null): FileView => ({
  id: r.id, folderId: r.folderId, path: r.path, name: r.originalName, size: r.size, state: r.state, error: r.error, batchId: r.batchId,
  runId: r.runId, updatedMs: r.updatedMs, reviewWaiting: r.reviewWaiting, reviewSinceMs: r.reviewSinceMs, batchClosesMs,
});

export function fileView(store: Store, f: FileRow, batchClosesMs: number | null = null): FileView {
  const run = f.batchId === null ? undefined : store.runs.runForBatch(f.batchId);
  const reviewWaiting = f.state === 'running' && run?.reviewWaiting === true;
  return queueView({ ...f, runId: run?.id ?? null, reviewWaiting, reviewSinceMs: reviewWaiting ? (run?.reviewSinceMs ?? null) : null }, batchClosesMs);
}

export function folderView(row: FolderRow, stats: ReturnType<Store['browse']['folderStats']>, store: Store, problem: string | null, targetUnchecked = false): FolderView {
  const v = validateFolderSettings(row.settings);
  const st = stats.get(row.id);
  if (!v.ok) problem = `stored settings are invalid: ${v.errors.join('; ')}`;
  return {
    id: row.id, path: row.path, enabled: row.enabled, problem, unreadableFolders: store.folders.unreadable(row.id), targetUnchecked,
    // Invalid stored settings still show (with the problem) so the folder can be fixed or removed.
    settings: v.ok ? v.settings : (row.settings as unknown as FolderView['settings']),
    counts: st?.counts ?? zeroCounts(), lastActivityMs: st?.lastActivityMs ?? null,
  };
}

export const runListView = (store: Store, { serviceId, ...r }: RunListRow): RunView => ({ ...r, origin: store.services.label(serviceId) });

export function runView(store: Store, r: RunRow): RunView {
  const batch = r.batchId === null ? undefined : store.runs.batch(r.batchId);
  const outcome = r.batchId === null ? { files: 0, done: 0, failed: 0 } : store.files.outcomeOfBatch(r.batchId);
  return {
    id: r.id, serviceRunId: r.serviceRunId, deploymentId: r.deploymentId, appId: r.appId, status: r.status, msg: r.msg, reviewWaiting: r.reviewWaiting,
    ...outcome, folderId: batch?.folderId ?? null, createdMs: r.createdMs,
    startMs: r.startMs, finishMs: r.finishMs, resultsStored: r.resultsStoredMs !== null, origin: store.services.label(r.serviceId),
  };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function boxes(f: FieldRow): SourceBox[] {
  const out: SourceBox[] = [];
  for (const c of f.sourceCoordinates) {
    const [l, t, r, b] = [num(c.top_x), num(c.top_y), num(c.bottom_x), num(c.bottom_y)];
    if (l === null || t === null || r === null || b === null) continue;
    out.push({ page: num(c.page_number), left: Math.min(l, r), top: Math.min(t, b), right: Math.max(l, r), bottom: Math.max(t, b) });
  }
  return out;
}

export const fieldView = (f: FieldRow): FieldView => ({
  id: f.id, name: f.name, value: f.value, type: f.type, errorMsg: f.errorMsg, confidence: f.confidenceModel, ocrConfidence: f.confidenceOcr,
  valid: f.valid, alerts: f.alerts.map((a) => ({ level: a.alert_level ?? null, type: a.type ?? null, msg: a.msg ?? null })), boxes: boxes(f), isError: f.isError,
});

/** page_layouts are kept only in the raw pages: read them from there, by file and document position. */
export function pageLayouts(store: Store, runId: number): Map<string, PageLayoutView[]> {
  const out = new Map<string, PageLayoutView[]>();
  for (const p of store.results.rawPages(runId)) {
    const files = (p.raw as { files?: unknown })?.files;
    if (!Array.isArray(files)) continue;
    files.forEach((file: unknown, fi) => {
      const docs = (file as { documents?: unknown })?.documents;
      if (!Array.isArray(docs)) return;
      docs.forEach((d: unknown, di) => {
        const layouts = (d as { page_layouts?: unknown })?.page_layouts;
        if (!Array.isArray(layouts)) return;
        const list: PageLayoutView[] = [];
        for (const l of layouts as Record<string, unknown>[]) {
          const page = num(Number(l?.page_number));
          const width = num(Number(l?.width));
          const height = num(Number(l?.height));
          if (page !== null && width && height) list.push({ page, width, height });
        }
        out.set(`${p.fileOffset + fi}:${di}`, list);
      });
    });
  }
  return out;
}

/**
 * A document's pages: the service's page_numbers count from 1 (shown as they are); source boxes
 * and page layouts count from 0, so the viewer opens page_numbers - 1.
 */
export function documentView(d: DocumentRow, layouts: PageLayoutView[]): DocumentView {
  const pageNumbers = d.pageNumbers.filter((n) => Number.isInteger(n) && n >= 1);
  return {
    id: d.id, className: d.className, pageNumbers, pageIndexes: pageNumbers.map((n) => n - 1), pageLayouts: layouts, classificationConfidence: d.classificationConfidence,
    hasPostProcessedPdf: d.postProcessedPdfPath !== null, fields: d.fields.map(fieldView),
  };
}

export function resultFileView(
  store: Store, rf: ResultFileRow, index: number, layouts: Map<string, PageLayoutView[]>, original: OriginalOnDisk,
): ResultFileView {
  const local = rf.fileId === null ? undefined : store.files.get(rf.fileId);
  const name = rf.originalFileName ?? local?.originalName ?? rf.inputFilePath?.split('/').pop() ?? `file ${rf.id}`;
  return {
    id: rf.id, runId: rf.runId, serviceRunId: store.runs.run(rf.runId)?.serviceRunId ?? '', fileId: rf.fileId, name,
    originalType: local !== undefined && original.present ? original.type : null, originalAvailable: local !== undefined && original.present,
    documents: rf.documents.map((d, di) => documentView(d, layouts.get(`${index}:${di}`) ?? [])),
  };
}

export const searchHitView = (store: Store, h: SearchHit): SearchHitView => ({
  kind: h.kind, runId: h.runId, serviceRunId: h.serviceRunId, runCreatedMs: store.runs.run(h.runId)?.createdMs ?? null, origin: store.services.label(h.serviceId), resultFileId: h.resultFileId, documentId: h.documentId, fieldId: h.fieldId,
  fieldName: h.fieldName, className: h.className, fileName: h.fileName, snippet: h.snippet,
});
