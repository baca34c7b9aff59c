/**
 * The states a local file goes through (issue 4's pipeline), shared by the engine, the store and the UI.
 * 'elsewhere' (issue 15): another agent of the folder's share handles it; neither this agent's work
 * nor final (it comes back here if that agent stops and this one takes it over).
 */
export const FILE_STATES = ['discovered', 'stable', 'queued', 'uploading', 'uploaded', 'running', 'done', 'failed', 'skipped', 'elsewhere'] as const;
export type FileState = (typeof FILE_STATES)[number];

/** A count of 0 for every state. */
export const zeroCounts = (): Record<FileState, number> => Object.fromEntries(FILE_STATES.map((s) => [s, 0])) as Record<FileState, number>;

/** States in which a file still has work ahead of it. */
export const ACTIVE_STATES: readonly FileState[] = ['discovered', 'stable', 'queued', 'uploading', 'uploaded', 'running'];
