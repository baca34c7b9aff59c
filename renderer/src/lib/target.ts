/** A deployment-or-app choice as a form holds it (strings), and back. Pure. */
import type { FolderTarget } from '../../../shared/hot-folder.js';

export interface TargetDraft {
  type: 'deployment' | 'app';
  id: string;
  /** App version; empty for the latest. */
  version: string;
}

export function draftOf(t: FolderTarget | null | undefined): TargetDraft {
  if (!t) return { type: 'deployment', id: '', version: '' };
  return t.type === 'app' ? { type: 'app', id: t.id, version: t.version ?? '' } : { type: 'deployment', id: t.id, version: '' };
}

/** The target, or null when no id is given. */
export function targetOf(d: TargetDraft): FolderTarget | null {
  const id = d.id.trim();
  if (!id) return null;
  if (d.type === 'deployment') return { type: 'deployment', id };
  const version = d.version.trim();
  return version ? { type: 'app', id, version } : { type: 'app', id };
}

export function describeTarget(t: FolderTarget): string {
  return t.type === 'deployment' ? t.id : `app ${t.id}${t.version ? ` v${t.version}` : ''}`;
}
