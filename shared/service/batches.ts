export interface BatchInfo {
  id: number;
  name: string;
  workspace?: string;
  mount_point?: string;
  repo_owner?: string;
  batch_owner?: string;
  created_at_ms?: number;
  updated_at_ms?: number;
  path_suffix?: string;
}

export interface CreateBatchRequest {
  name: string;
  workspace?: string;
}

export interface CreateBatchResponse {
  id: number;
}

export interface ListBatchesQuery {
  workspace?: string;
  username?: string;
  limit?: number;
  offset?: number;
}

export interface ListBatchesResponse {
  batches: BatchInfo[];
}

export interface FileNode {
  full_path?: string;
  name?: string;
  metadata?: { node_type?: string; size?: number; modified_timestamp?: number };
  perms?: { can_read?: boolean; can_write?: boolean; can_delete?: boolean };
}

export interface ListBatchFilesResponse {
  nodes: FileNode[];
  next_page_token?: string;
  has_more: boolean;
}

export interface StartMultipartRequest {
  batch_id: number;
  filename: string;
  /** The spec allows an integer or a string. */
  file_size: number | string;
}

export interface StartMultipartResponse {
  session_id: string;
  part_size: number;
}

export interface UploadPartResponse {
  part_id: string;
  part_num: number;
}

export interface PartRef {
  part_num: number;
  part_id: string;
}

export type MultipartActionRequest = { action: 'commit'; parts: PartRef[] } | { action: 'abort'; parts?: PartRef[] };
