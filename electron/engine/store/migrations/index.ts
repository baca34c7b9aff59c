/**
 * The store's migrations, in order. Migration i (0-based) takes the database from
 * `PRAGMA user_version` i to i + 1. Append only: never edit or reorder a released migration.
 */
import type { Db } from '../db.js';
import { initial } from './001-initial.js';
import { search } from './002-search.js';
import { batchPlan } from './003-batch-plan.js';
import { searchSplit } from './004-search-split.js';
import { serviceKeys } from './005-service-keys.js';
import { serviceShapes } from './006-service-shapes.js';
import { folderProblems } from './007-folder-problems.js';
import { joinedWordsSearch } from './008-joined-words.js';
import { reviewSince } from './009-review-since.js';
import { searchIngest } from './010-search-ingest.js';
import { searchWatermark } from './011-search-watermark.js';
import { searchPrefixes } from './012-search-prefixes.js';
import { sharedFolders } from './014-shared-folders.js';
import { caseFieldsOnce } from './015-case-fields-once.js';
import { caseInfoOnce } from './017-case-info-once.js';
import { rawPagesDeflated } from './018-raw-pages-deflated.js';
import { searchFile } from './019-search-file.js';

export type Migration = (db: Db) => void;

/**
 * 013 was given to work that in the end needed no migration: it changes nothing. 016 is held for
 * work on the intake done beside 017's; it changes nothing unless that work gives it a body.
 */
const reserved: Migration = () => undefined;

export const MIGRATIONS: readonly Migration[] = [initial, search, batchPlan, searchSplit, serviceKeys, serviceShapes, folderProblems, joinedWordsSearch, reviewSince, searchIngest,
  searchWatermark, searchPrefixes, reserved, sharedFolders, caseFieldsOnce, reserved, caseInfoOnce, rawPagesDeflated, searchFile];
