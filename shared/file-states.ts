/** The states a local file goes through (issue 4's pipeline), shared by the engine, the store and the UI. */
export const FILE_STATES = ['discovered', 'stable', 'queued', 'uploading', 'uploaded', 'running', 'done', 'failed', 'skipped'] as const;
export type FileState = (typeof FILE_STATES)[number];

/** States in which a file still has work ahead of it. */
export const ACTIVE_STATES: readonly FileState[] = ['discovered', 'stable', 'queued', 'uploading', 'uploaded', 'running'];
