import { join, resolve, sep } from 'node:path';
import { badRequest, forbidden, notFound } from './http/errors.js';
import type { Db } from './db.js';
import { canAccessWorkspace, type SandboxUser } from './users.js';

/**
 * The service's filesystem: top-level folders are drives (mount points); a path is
 * `drive/...`. Paths under `drive/workspaces/<ws>/` belong to that workspace and need
 * membership; the rest of a drive is shared by the org.
 */
export interface ServicePath {
  drive: string;
  /** Segments below the drive. */
  rest: string[];
  /** Canonical form: `drive/a/b`. */
  text: string;
  workspace: string | null;
}

export interface DriveRow {
  name: string;
  kind: 'own' | 'object' | 'document';
  connected: number;
  is_default: number;
}

/** Splits and checks a path; anything that could leave the filesystem root is a 400. */
export function parseServicePath(raw: string): ServicePath {
  if (raw.includes('\0') || raw.includes('\\')) throw badRequest(`invalid path "${raw}": NUL and backslash are not allowed`);
  const segs = raw.split('/').filter((s) => s !== '');
  for (const s of segs) {
    if (s === '..' || s === '.') throw badRequest(`invalid path "${raw}": "${s}" segments would leave the filesystem root`);
  }
  const [drive, ...rest] = segs;
  if (!drive) throw badRequest('path is empty: give a drive, e.g. svc-drive/folder/file.pdf');
  const workspace = rest[0] === 'workspaces' && rest[1] ? rest[1] : null;
  return { drive, rest, text: [drive, ...rest].join('/'), workspace };
}

export class Drives {
  constructor(
    private readonly db: Db,
    private readonly root: string,
  ) {}

  get(name: string): DriveRow | undefined {
    return this.db.prepare('SELECT * FROM drives WHERE name = ?').get(name) as DriveRow | undefined;
  }

  all(): DriveRow[] {
    return this.db.prepare('SELECT * FROM drives ORDER BY name').all() as DriveRow[];
  }

  defaultDrive(): DriveRow {
    return this.db.prepare('SELECT * FROM drives WHERE is_default = 1').get() as DriveRow;
  }

  /** Disk location of a service path; the resolve check is a second guard behind parseServicePath. */
  diskPath(p: ServicePath): string {
    const base = resolve(this.root, p.drive);
    const full = resolve(base, ...p.rest);
    if (full !== base && !full.startsWith(base + sep)) throw badRequest(`invalid path "${p.text}"`);
    return full;
  }

  diskPathOf(text: string): string {
    return this.diskPath(parseServicePath(text));
  }

  driveRoot(name: string): string {
    return join(this.root, name);
  }

  /**
   * Checks that the caller may use the path: the drive exists and is connected, and a
   * workspace path belongs to a workspace the caller is a member of.
   */
  checkAccess(p: ServicePath, user: SandboxUser, workspaces: ReadonlySet<string>, forWrite: boolean): DriveRow {
    const drive = this.get(p.drive);
    if (!drive) {
      if (forWrite) throw badRequest(`unknown drive "${p.drive}"; drives: ${this.all().map((d) => d.name).join(', ')}`);
      throw notFound(`nothing exists at ${p.text}`);
    }
    if (!drive.connected) throw badRequest(`drive "${p.drive}" is disconnected`);
    if (forWrite && drive.kind === 'document') throw badRequest(`drive "${p.drive}" is a cloud document drive: writing and deleting are not supported there`);
    if (p.workspace !== null && !canAccessWorkspace(user, p.workspace, workspaces)) {
      throw forbidden(`you are not a member of workspace "${p.workspace}"`);
    }
    return drive;
  }
}
