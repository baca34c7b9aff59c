/**
 * The only renderer code that knows the transport: Electron's preload (`window.docsync`) when it is
 * there, else the headless host's HTTP bridge (same origin; the per-start secret is a cookie).
 */
import { HTTP, type Args, type Bridge, type EventChannel, type Events, type PreloadApi, type RequestChannel, type Results } from '../../../shared/ui/contract.js';
import { replyError, type ErrorReply } from '../../../shared/ui/errors.js';
import { decodeWire, encodeWire } from '../../../shared/ui/wire.js';

declare global {
  interface Window {
    docsync?: PreloadApi;
  }
}

function electronBridge(api: PreloadApi): Bridge {
  return {
    call: async (channel, args) => {
      const reply = await api.requests[channel](args);
      if (!reply.ok) throw replyError(reply);
      return reply.result;
    },
    on: (event, fn) => api.events[event](fn),
  };
}

/** Server-sent events, reconnected by the browser; listeners are kept across reconnects. */
function httpBridge(): Bridge {
  const listeners = new Map<EventChannel, Set<(p: never) => void>>();
  let source: EventSource | undefined;
  const ensure = (event: EventChannel): void => {
    source ??= new EventSource(HTTP.events);
    if (listeners.has(event)) return;
    listeners.set(event, new Set());
    source.addEventListener(event, (e) => {
      const payload = decodeWire((e as MessageEvent<string>).data) as never;
      for (const fn of listeners.get(event) ?? []) fn(payload);
    });
  };
  return {
    async call<C extends RequestChannel>(channel: C, args: Args<C>): Promise<Results[C]> {
      let res: Response;
      try {
        res = await fetch(HTTP.call + channel, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [HTTP.header]: '1' },
          body: encodeWire(args),
        });
      } catch {
        throw new Error('DocSync is not running (the page cannot reach it)');
      }
      const body = decodeWire(await res.text()) as { ok: true; result: Results[C] } | ErrorReply;
      if (!body.ok) throw replyError(body);
      return body.result;
    },
    on<E extends EventChannel>(event: E, fn: (payload: Events[E]) => void): () => void {
      ensure(event);
      const set = listeners.get(event) as Set<(p: Events[E]) => void>;
      set.add(fn);
      return () => set.delete(fn);
    },
  };
}

// Read once; `window` is missing where the stores run under unit tests (Node), which then set their own bridge.
const preload: PreloadApi | undefined = typeof window === 'undefined' ? undefined : window.docsync;

// A live binding (importers see a replacement): only useBridge() reassigns it.
export let bridge: Bridge = preload ? electronBridge(preload) : httpBridge();

/** Tests only: serve the stores from another Bridge (an in-process engine) instead of the page's transport. */
export function useBridge(b: Bridge): void {
  bridge = b;
}

/** Electron only: the local path of a dropped File; null in a browser (the file's bytes are staged instead). */
export const pathForFile = (f: File): string | null => (preload ? preload.pathForFile(f) || null : null);
export const isElectron = preload !== undefined;
