/** The services the store has talked to (table `services`, migration 005): what its rows are keyed by. */
import type { Db } from './db.js';

/** Which service: its URL and context, or the built-in sandbox (one service whatever port it has). */
export interface ServiceKey {
  url: string;
  context?: string | null;
  builtIn?: boolean;
}

export interface ServiceRow {
  id: number;
  /** For the built-in sandbox: the address it had last. */
  url: string;
  context: string | null;
  builtIn: boolean;
  createdMs: number;
}

interface Raw { id: number; url: string; context: string; built_in: number; created_ms: number }
const service = (r: Raw): ServiceRow => ({ id: r.id, url: r.url, context: r.context || null, builtIn: r.built_in === 1, createdMs: r.created_ms });

/** Where a service's results came from, as a person says it: "the sandbox", "https://host", "https://host (context C)". */
export function serviceLabel(s: Pick<ServiceRow, 'url' | 'context' | 'builtIn'>): string {
  if (s.builtIn) return 'the sandbox';
  let where = s.url;
  try {
    where = new URL(s.url).origin;
  } catch {
    // kept as stored
  }
  return s.context ? `${where} (context ${s.context})` : where;
}

export function servicesQueries(db: Db, now: () => number = Date.now) {
  const find = db.prepare<[number, string, string], Raw>(
    "SELECT * FROM services WHERE built_in = ? AND (built_in = 1 OR url = ?) AND context = ?");
  const insert = db.prepare<[string, string, number, number], Raw>('INSERT INTO services (url, context, built_in, created_ms) VALUES (?, ?, ?, ?) RETURNING *');
  const setUrl = db.prepare<[string, number], Raw>('UPDATE services SET url = ? WHERE id = ? RETURNING *');
  const byId = db.prepare<[number], Raw>('SELECT * FROM services WHERE id = ?');
  const all = db.prepare<[], Raw>('SELECT * FROM services ORDER BY id');
  const ensure = db.transaction((k: ServiceKey): ServiceRow => {
    const builtIn = k.builtIn ? 1 : 0;
    const context = k.context ?? '';
    const cur = find.get(builtIn, k.url, context);
    if (!cur) return service(insert.get(k.url, context, builtIn, now())!);
    // The built-in sandbox moves to a new port on every start; it is still the same service.
    return service(cur.url === k.url ? cur : setUrl.get(k.url, cur.id)!);
  });
  const labels = new Map<number, string>();

  return {
    /** The row of a service, made on first use. */
    ensure: (k: ServiceKey): ServiceRow => ensure.immediate(k),
    get(id: number): ServiceRow | undefined {
      const r = byId.get(id);
      return r && service(r);
    },
    list: (): ServiceRow[] => all.all().map(service),
    /** serviceLabel of a stored service; null for rows of no service. Labels never change, so they are kept. */
    label(id: number | null): string | null {
      if (id === null) return null;
      let l = labels.get(id);
      if (l === undefined) {
        const r = byId.get(id);
        if (!r) return null;
        labels.set(id, (l = serviceLabel(service(r))));
      }
      return l;
    },
  };
}

export type ServicesQueries = ReturnType<typeof servicesQueries>;
