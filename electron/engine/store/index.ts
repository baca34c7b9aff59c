/** The local store (issue 4, "Local store"): open it with openStore(path). */
export { openStore, openDatabase, STORE_FILE, type Store, type OpenOptions } from './open.js';
export { migrate, userVersion, StoreVersionError } from './migrate.js';
export { MIGRATIONS, type Migration } from './migrations/index.js';
export type { Db } from './db.js';
export type { FolderRow, NewFolder, FoldersQueries } from './folders.js';
export { serviceLabel, type ServiceKey, type ServiceRow, type ServicesQueries } from './services.js';
export { FILE_STATES, UnknownFileError, type FileState, type FileRow, type FileEvent, type NewFile, type StateChange, type MultipartSession, type UploadedPart, type FilesQueries } from './files.js';
export { TERMINAL_RUN_STATUSES, type BatchRow, type RunRow, type JobRow, type RunsQueries } from './runs.js';
export { isErrorField, type StoredPage, type FieldRow, type DocumentRow, type ResultFileRow, type CaseFieldRow, type ArtifactRow, type ResultsQueries } from './results.js';
export { ftsQuery, type SearchHit, type SearchOptions } from './search.js';
export type { TreeRow } from './browse.js';
export type { StoredAgent, ShareQueries } from './share.js';
