import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDb, type Db } from './db.js';
import { Drives } from './drive.js';
import { notFound } from './http/errors.js';
import type { JobRunner } from './jobs.js';
import { OcrPool } from './processing/index.js';
import type { SandboxOptions } from './options.js';
import { allWorkspaces, canAccessWorkspace, DEFAULT_USERS, type SandboxUser, type UsersConfig } from './users.js';

export interface BatchRow {
  id: number;
  name: string;
  workspace: string;
  mount_point: string;
  owner: string;
  created_at_ms: number;
  updated_at_ms: number;
}

/** Shared state of one sandbox instance: options, database, drives, users. Routes get it by closure. */
export class SandboxCore {
  readonly db: Db;
  readonly drives: Drives;
  readonly users: UsersConfig;
  readonly workspaces: Set<string>;
  readonly tmpDir: string;
  readonly partsDir: string;
  /** OCR workers: started on the first scan, shared by all runs, stopped with the sandbox. */
  readonly ocr: OcrPool;
  /** Set by the server once the job runner exists (it needs the core for its work). */
  jobs!: JobRunner;

  constructor(
    readonly opts: SandboxOptions,
    readonly dataDir: string,
  ) {
    this.tmpDir = join(dataDir, 'tmp');
    this.partsDir = join(dataDir, 'parts');
    mkdirSync(this.tmpDir, { recursive: true });
    mkdirSync(this.partsDir, { recursive: true });
    this.db = openDb(join(dataDir, 'sandbox.db'));
    this.drives = new Drives(this.db, join(dataDir, 'drives'));
    for (const d of this.drives.all()) mkdirSync(this.drives.driveRoot(d.name), { recursive: true });
    this.users = opts.users ?? DEFAULT_USERS;
    this.workspaces = allWorkspaces(this.users);
    this.ocr = new OcrPool({ size: opts.ocrWorkers });
  }

  userByToken(token: string): SandboxUser | undefined {
    return this.users.users.find((u) => u.token === token);
  }

  canAccess(user: SandboxUser, workspace: string): boolean {
    return canAccessWorkspace(user, workspace, this.workspaces);
  }

  batchRow(id: number): BatchRow | undefined {
    return this.db.prepare('SELECT * FROM batches WHERE id = ?').get(id) as BatchRow | undefined;
  }

  /** A batch the caller may see; a missing batch and a denied one are the same 404 (spec 5.5). */
  visibleBatch(user: SandboxUser, rawId: string | number): BatchRow {
    const id = typeof rawId === 'number' ? rawId : /^\d+$/.test(rawId) ? Number(rawId) : NaN;
    const row = Number.isSafeInteger(id) ? this.batchRow(id) : undefined;
    if (!row || !this.canAccess(user, row.workspace)) throw notFound(`batch ${rawId} not found`);
    return row;
  }

  /** Service path of a batch's folder, relative to its drive. */
  batchSuffix(b: BatchRow): string {
    return `workspaces/${b.workspace}/batches/${b.id}`;
  }

  batchDir(b: BatchRow): string {
    return this.drives.diskPathOf(`${b.mount_point}/${this.batchSuffix(b)}`);
  }

  async close(): Promise<void> {
    await this.ocr.close();
    this.db.close();
  }
}
