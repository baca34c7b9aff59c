/** Hot-folder settings live in shared/ (the UI edits them); re-exported here for the engine. */
export {
  FOLDER_DEFAULTS,
  LIMITS,
  isAbsolutePath,
  isInside,
  validateFolderSettings,
  type AfterSuccess,
  type FolderBatching,
  type FolderRunSettings,
  type FolderTarget,
  type HotFolderSettings,
  type ValidationResult,
} from '../../../shared/hot-folder.js';
