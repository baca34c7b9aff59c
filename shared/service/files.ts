export const NODE_TYPES = ['file', 'folder'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** Value of the retry-config header (JSON). */
export interface RetryConfig {
  retries: number;
  'backoff-seconds': number;
}

/** Metadata of HEAD /v2/files/{path}, read from the response headers. */
export interface PathMetadata {
  nodeType: NodeType;
  size?: number;
  lastModified?: Date;
}
