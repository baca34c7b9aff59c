/** A quick check that a service answers and accepts a token: short timeouts and one retry. */
import { ServiceClient } from './index.js';
import type { ProxyRoute } from './proxy.js';

export interface ProbeTarget {
  url: string;
  token: string;
  context?: string | undefined;
  /** The connection's own CA certificates (PEM), as the client that follows will trust them. */
  ca?: string | undefined;
  /** The proxy the client that follows will use (null: direct; absent: the environment's). */
  proxy?: ProxyRoute | null | undefined;
}

/** A client for probing: it must answer quickly either way. */
export function probeClient(t: ProbeTarget): ServiceClient {
  return new ServiceClient({
    baseUrl: t.url, token: t.token, ...(t.context !== undefined ? { context: t.context } : {}), ...(t.ca !== undefined ? { ca: t.ca } : {}), ...(t.proxy !== undefined ? { proxy: t.proxy } : {}),
    retry: { limit: 1, baseDelayMs: 100, maxDelayMs: 200, maxRetryAfterMs: 2000 },
    timeouts: { connectMs: 5000, responseMs: 15_000, idleMs: 15_000 },
  });
}

/** One cheap call (list one batch); rejects with the client's typed error. */
export async function probeOnce(t: ProbeTarget): Promise<void> {
  const c = probeClient(t);
  try {
    await c.listBatches({ limit: 1 });
  } finally {
    c.close();
  }
}
