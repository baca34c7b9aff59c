// A plain client of the headless UI transport, as a browser would use it: signs in with the
// printed address, calls channels, listens to the event stream, and keeps every byte it received.
import { request } from 'node:http';
import type { Args, RequestChannel, Results } from '../../shared/ui/contract.js';
import { decodeWire, encodeWire } from '../../shared/ui/wire.js';

export interface UiClient {
  call<C extends RequestChannel>(channel: C, args: Args<C>): Promise<Results[C]>;
  /** Everything received so far: response bodies and the event stream. */
  received(): string;
  close(): void;
}

export async function uiClient(openUrl: string): Promise<UiClient> {
  const u = new URL(openUrl);
  const first = await fetch(openUrl, { redirect: 'manual' });
  const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0];
  if (first.status !== 303 || !cookie) throw new Error(`sign-in address answered ${first.status}`);
  const log: string[] = [];
  const events = request({ host: u.hostname, port: u.port, path: '/api/events', headers: { cookie } }, (res) => res.on('data', (c: Buffer) => log.push(c.toString())));
  events.on('error', () => undefined);
  events.end();
  return {
    async call(channel, args) {
      const res = await fetch(`${u.origin}/api/call/${channel}`, { method: 'POST', headers: { cookie, 'x-docsync': '1', 'content-type': 'application/json' }, body: encodeWire(args) });
      const text = await res.text();
      log.push(text);
      const body = decodeWire(text) as { ok: true; result: never } | { ok: false; error: string };
      if (!body.ok) throw new Error(body.error);
      return body.result;
    },
    received: () => log.join(''),
    close: () => events.destroy(),
  };
}
