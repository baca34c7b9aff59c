import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditLogType } from '../../shared/service/audit.js';
import type { SandboxUser } from '../users.js';
import { badRequest } from './errors.js';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Set for every route whose auth is not 'none'. */
  user: SandboxUser;
}

/**
 * v2: bearer token plus the context header; v1: bearer token only (the audit-log endpoint
 * lists no context header); sandbox: bearer token, outside the service API; none: open.
 */
export type AuthKind = 'v2' | 'v1' | 'sandbox' | 'none';

export interface Route {
  method: string;
  /** Segments: literal, `:name` for one segment, `*name` for the rest of the path. */
  pattern: string;
  logType: AuditLogType;
  auth: AuthKind;
  handler: (ctx: RequestContext) => Promise<void> | void;
}

export type Match = { route: Route; params: Record<string, string> } | { methods: string[] } | null;

function decode(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    throw badRequest(`bad percent-encoding in path segment "${seg}"`);
  }
}

function matchPattern(pattern: string[], segs: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    if (p.startsWith('*')) {
      params[p.slice(1)] = segs.slice(i).map(decode).join('/');
      return params;
    }
    const s = segs[i];
    if (s === undefined) return null;
    if (p.startsWith(':')) params[p.slice(1)] = decode(s);
    else if (p !== s) return null;
  }
  return pattern.length === segs.length ? params : null;
}

export class Router {
  private readonly routes: { route: Route; segs: string[] }[] = [];

  add(routes: Route[]): void {
    for (const route of routes) this.routes.push({ route, segs: route.pattern.split('/').filter(Boolean) });
  }

  /** A route for method+path, or the methods the path allows (for a 405), or null (404). */
  match(method: string, pathname: string): Match {
    const segs = pathname.split('/').filter(Boolean);
    const methods: string[] = [];
    for (const { route, segs: pattern } of this.routes) {
      const params = matchPattern(pattern, segs);
      if (!params) continue;
      if (route.method === method) return { route, params };
      methods.push(route.method);
    }
    return methods.length ? { methods } : null;
  }
}
