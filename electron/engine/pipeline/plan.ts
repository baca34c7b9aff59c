import type { FolderRunSettings, FolderTarget } from '../../../shared/hot-folder.js';
import type { RunSettings } from '../../../shared/service/runs.js';

/** What a batch is uploaded for: stored with the batch (JSON) when it closes. */
export interface BatchPlan {
  target: FolderTarget;
  run: FolderRunSettings;
}

/** A tag that names the local batch on its run, so a run started just before a crash is found again. */
export const batchTag = (batchName: string): string => `docsync:${batchName}`;

export function runSettings(plan: BatchPlan, batchName: string): RunSettings {
  const r = plan.run;
  const settings: RunSettings = { tags: [...r.tags, batchTag(batchName)] };
  if (Object.keys(r.customKeys).length) settings.keys = { custom: r.customKeys };
  if (r.postProcessPdf || Object.keys(r.pdfPasswords).length) {
    settings.runtime_config = {
      ...(r.postProcessPdf ? { generate_post_process_pdf: true } : {}),
      ...(Object.keys(r.pdfPasswords).length ? { svc: { pdf: { passwords: r.pdfPasswords } } } : {}),
    };
  }
  return settings;
}

export function parsePlan(text: string | null): BatchPlan {
  if (!text) throw new Error('batch has no plan');
  return JSON.parse(text) as BatchPlan;
}
