/**
 * The renderer's stores against the real engine side: an in-process AppCore (real store, real engine,
 * real sandbox for "Try the sandbox") wrapped as the contract's Bridge and installed with useBridge().
 * AppCore.call is what the HTTP and IPC transports call (the real handler table with its argument
 * checks). Arguments, answers, errors (their message and code) and events are structured-cloned, as
 * Electron IPC does (the HTTP bridge copies through JSON), so a store never shares an object with the engine.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useBridge } from '../../../../renderer/src/lib/bridge.js';
import type { Args, Bridge, EventChannel, Events, RequestChannel, Results } from '../../../../shared/ui/contract.js';
import { errorReply, replyError } from '../../../../shared/ui/errors.js';
import { coreEnv, type CoreEnv } from '../../../helpers/app-core.js';
import { invoicePdf } from '../../../helpers/pdf-fixtures.js';
import { caller } from '../../../helpers/sandbox.js';

export interface Call {
  channel: RequestChannel;
  args: unknown;
}

export interface StoreEnv extends CoreEnv {
  /** Every request a store made, in order. */
  calls: Call[];
  count(channel: RequestChannel): number;
  /**
   * Runs before a request goes to the engine: what a person does while it is on its way; a promise
   * returned holds the request until it settles (a slow transport, for answers that cross).
   */
  beforeCall: ((c: Call) => void | Promise<void>) | null;
  /** A new folder under the test's temp dir. */
  dir(name: string): Promise<string>;
  /** Approves a run waiting for review, as a reviewer does in the service's web UI. */
  approve(serviceRunId: string): Promise<void>;
}

export async function storeEnv(): Promise<StoreEnv> {
  const base = await coreEnv();
  const { core } = base;
  const env: StoreEnv = {
    ...base,
    calls: [],
    count: (channel) => env.calls.filter((c) => c.channel === channel).length,
    beforeCall: null,
    async dir(name) {
      const d = join(base.root, name);
      await mkdir(d, { recursive: true });
      return d;
    },
    async approve(serviceRunId) {
      const sb = base.sandboxes[0];
      if (!sb) throw new Error('no sandbox started');
      const answer = await caller(sb.url, sb.token)('POST', `/sandbox/runs/${serviceRunId}/review`, { action: 'approve' });
      if (answer.status !== 200) throw new Error(`review of ${serviceRunId}: ${answer.status} ${answer.text}`);
    },
  };
  const bridge: Bridge = {
    async call<C extends RequestChannel>(channel: C, args: Args<C>): Promise<Results[C]> {
      const c = { channel, args: structuredClone(args) };
      env.calls.push(c);
      await env.beforeCall?.(c);
      let result: unknown;
      try {
        result = await core.call(channel, c.args);
      } catch (err) {
        // As the transports carry it: the one-line message and its code, in a reply envelope.
        throw replyError(structuredClone(errorReply(err instanceof Error ? err.message : String(err), err)));
      }
      return structuredClone(result) as Results[C];
    },
    on<E extends EventChannel>(event: E, fn: (payload: Events[E]) => void): () => void {
      const listener = (payload: Events[E]): void => fn(structuredClone(payload));
      const events = core.events as unknown as NodeJS.EventEmitter;
      events.on(event, listener);
      return () => void events.off(event, listener);
    },
  };
  useBridge(bridge);
  return env;
}

export const invoice = (n: number, total = `$${n}.00`): Promise<Buffer> =>
  invoicePdf({ invoiceNumber: `INV-${n}`, invoiceDate: 'May 1, 2026', dueDate: 'May 31, 2026', total, vendor: `Vendor ${n}` });

/** Writes invoice `n` as a PDF into `dir`; returns its path. */
export async function writeInvoice(dir: string, n: number, total?: string): Promise<string> {
  const p = join(dir, `inv-${n}.pdf`);
  await writeFile(p, await invoice(n, total));
  return p;
}

/** Listeners the engine has for an event: a store that stopped must have taken its own away. */
export const listeners = (env: StoreEnv, event: EventChannel): number => env.core.events.listenerCount(event);
