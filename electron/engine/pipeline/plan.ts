import type { FolderRunSettings, FolderTarget } from '../../../shared/hot-folder.js';
import { runtimeConfig, type RunSettings } from '../../../shared/service/runs.js';

/** What a batch is uploaded for: stored with the batch (JSON) when it closes. */
export interface BatchPlan {
  target: FolderTarget;
  run: FolderRunSettings;
}

/** A tag that names the local batch on its run, so a run started just before a crash is found again. */
export const batchTag = (batchName: string): string => `docsync:${batchName}`;

/**
 * The run settings of a batch. PDF passwords go to `runtime_config.<namespace>.pdf.passwords`:
 * `namespace` is the deployment's segment (the client's `namespace`, default svc), the same one
 * the secrets path uses; under any other segment the service ignores them.
 */
export function runSettings(plan: BatchPlan, batchName: string, namespace: string): RunSettings {
  const r = plan.run;
  const settings: RunSettings = { tags: [...r.tags, batchTag(batchName)] };
  if (Object.keys(r.customKeys).length) settings.keys = { custom: r.customKeys };
  const rc = runtimeConfig(namespace, { generatePostProcessPdf: r.postProcessPdf, pdfPasswords: r.pdfPasswords });
  if (Object.keys(rc).length) settings.runtime_config = rc;
  return settings;
}

export function parsePlan(text: string | null): BatchPlan {
  if (!text) throw new Error('batch has no plan');
  return JSON.parse(text) as BatchPlan;
}
