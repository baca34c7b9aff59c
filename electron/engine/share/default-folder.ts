/**
 * The default coordination folder of a share, derived the same way by every agent of one account:
 * `<mount_point>/workspaces/<workspace>/docsync-shares` of the account's OLDEST batch named
 * `docsync-shares`. That batch is an empty marker: the first agent that finds none creates it (no
 * workspace given, so the service puts it in the caller's default workspace on its default drive)
 * and then lists again. If two agents create one at once, both then take the lowest id; batch ids
 * only grow, so every later look agrees.
 */
import type { BatchInfoView, CreateBatchRequest, ListBatchesQuery } from '../../../shared/service/index.js';

export const MARKER_BATCH = 'docsync-shares';

/** What this needs of the ServiceClient. */
export interface BatchLister {
  readonly config: { username: string | undefined };
  listBatches(q?: ListBatchesQuery): Promise<{ batches: BatchInfoView[] }>;
  createBatch(req: CreateBatchRequest): Promise<{ id: number | string }>;
}

async function oldestMarker(client: BatchLister): Promise<BatchInfoView | null> {
  const user = client.config.username;
  const found: BatchInfoView[] = [];
  const pageSize = 500;
  for (let offset = 0; ; offset += pageSize) {
    const { batches } = await client.listBatches({ limit: pageSize, offset, ...(user ? { username: user } : {}) });
    found.push(...batches.filter((b) => b.name === MARKER_BATCH && b.mount_point && b.workspace));
    if (batches.length < pageSize) break;
  }
  found.sort((a, b) => Number(a.id) - Number(b.id));
  return found[0] ?? null;
}

export async function defaultCoordinationFolder(client: BatchLister): Promise<string> {
  let marker = await oldestMarker(client);
  if (!marker) {
    try {
      await client.createBatch({ name: MARKER_BATCH });
    } catch (e) {
      throw new Error(`The shared folder needs a coordination folder on the service, and none could be found for this account (${(e as Error).message}). Give the share a coordination folder, such as svc-drive/shared/docsync.`);
    }
    marker = await oldestMarker(client);
  }
  if (!marker) throw new Error('The service did not show the marker batch just created for the shared folders. Give the share a coordination folder, such as svc-drive/shared/docsync.');
  return `${marker.mount_point}/workspaces/${marker.workspace}/docsync-shares`;
}
