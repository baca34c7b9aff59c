// A link emulator for the benchmarks (issue 27): a userspace TCP relay on 127.0.0.1 placed between a
// client and a server, with a one-way delay in each direction and one rate cap per direction shared
// by every relayed connection, as an office's uplink is (a cap per connection would flatter parallel
// uploads). This kernel has no netem; a relay works everywhere and needs no privileges.
//
// Model: each direction is one FIFO line of `rate` bits per second. A chunk read from a connection
// is queued on its direction's line behind everything queued before it (any connection), leaves the
// line once serialised, and is written to the other side `delayMs` later. Per connection, chunks
// arrive in the order they were read. A connection's bytes on the way (queued or in flight) are
// bounded: past `windowBytes` the relay stops reading that socket until they drain, so the sender
// meets TCP backpressure and nothing is held in memory without bound. A new connection's first
// bytes wait one round trip (the handshake the relay, being local, does not otherwise cost).
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface LinkOptions {
  /** Where the relay forwards to (127.0.0.1). */
  targetPort: number;
  /** Round trip added by the link, ms: half of it each way. */
  rttMs: number;
  /** Rate of each direction, bits per second (0: no cap). */
  upBps: number;
  downBps: number;
  /** Bytes of one connection's direction on their way at most (default: twice the bandwidth-delay product, at least 256 KiB). */
  windowBytes?: number;
}

export interface Link {
  /** The relay's port on 127.0.0.1: connect here instead of to the target. */
  port: number;
  url: string;
  /** Bytes carried and connections accepted so far. */
  stats(): { up: number; down: number; connections: number };
  close(): Promise<void>;
}

/** Bytes a line moves per piece: small enough that a 20 Mbit/s line interleaves connections every few ms. */
const PIECE = 16 * 1024;

/** One direction's line, shared by every connection: when each piece finishes being serialised. */
class Line {
  #free = 0;
  constructor(private readonly bps: number) {}
  /** The time (performance.now()) `bytes` finish leaving, queued behind every piece before them. */
  depart(bytes: number, notBefore: number): number {
    const start = Math.max(this.#free, notBefore);
    this.#free = this.bps > 0 ? start + (bytes * 8 * 1000) / this.bps : start;
    return this.#free;
  }
}

/** One connection's direction: pieces in order, each written at its arrival time, reading paused past the window. */
class Pipe {
  readonly #queue: { at: number; data: Buffer }[] = [];
  #inFlight = 0;
  #timer: NodeJS.Timeout | undefined;
  /** The sender closed its side (FIN): the other side is ended once what is queued has arrived. */
  ended = false;
  #paused = false;
  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly line: Line,
    private readonly oneWayMs: number,
    private readonly window: number,
    private readonly openAt: number,
    private readonly count: (n: number) => void,
  ) {
    from.on('data', (d: Buffer) => this.#take(d));
    from.on('end', () => {
      this.ended = true;
      this.#flush();
    });
  }

  #take(d: Buffer): void {
    for (let i = 0; i < d.length; i += PIECE) {
      const data = d.subarray(i, i + PIECE);
      this.#queue.push({ at: this.line.depart(data.length, Math.max(performance.now(), this.openAt)) + this.oneWayMs, data });
      this.#inFlight += data.length;
    }
    if (this.#inFlight > this.window && !this.#paused) {
      this.#paused = true;
      this.from.pause();
    }
    this.#arm();
  }

  #arm(): void {
    if (this.#timer || this.#queue.length === 0) return;
    const wait = (this.#queue[0] as { at: number }).at - performance.now();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, Math.max(0, wait));
  }

  #flush(): void {
    const now = performance.now();
    while (this.#queue.length && (this.#queue[0] as { at: number }).at <= now + 0.5) {
      const { data } = this.#queue.shift() as { data: Buffer };
      this.#inFlight -= data.length;
      this.count(data.length);
      if (!this.to.destroyed) this.to.write(data);
    }
    // Reading again only once the other side has taken what was written: its backpressure reaches the sender too.
    if (this.#paused && this.#inFlight <= this.window / 2) {
      const resume = (): void => {
        this.#paused = false;
        this.from.resume();
      };
      if (this.to.writableNeedDrain) this.to.once('drain', resume);
      else resume();
    }
    if (this.#queue.length) this.#arm();
    else if (this.ended && !this.to.destroyed) this.to.end();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#queue.length = 0;
  }
}

export async function startLink(o: LinkOptions): Promise<Link> {
  const oneWay = o.rttMs / 2;
  const up = new Line(o.upBps);
  const down = new Line(o.downBps);
  const bdp = (Math.max(o.upBps, o.downBps) / 8) * (o.rttMs / 1000);
  const window = o.windowBytes ?? Math.max(256 * 1024, Math.ceil(2 * bdp));
  const totals = { up: 0, down: 0, connections: 0 };
  const sockets = new Set<Socket>();
  // Half-open allowed: a side that sends FIN may still receive what is queued for it.
  const server: Server = createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    totals.connections++;
    // The handshake's round trip: the client's first bytes leave no sooner than one RTT after it connected.
    const openAt = performance.now() + o.rttMs;
    const service = connect({ host: '127.0.0.1', port: o.targetPort, noDelay: true, allowHalfOpen: true });
    sockets.add(client).add(service);
    const toService = new Pipe(client, service, up, oneWay, window, openAt, (n) => (totals.up += n));
    const toClient = new Pipe(service, client, down, oneWay, window, 0, (n) => (totals.down += n));
    const abort = (): void => {
      toService.stop();
      toClient.stop();
      client.destroy();
      service.destroy();
    };
    // A side gone without FIN (reset, error): the other is cut once that news would have crossed the link.
    const closed = (s: Socket, pipe: Pipe) => (): void => {
      sockets.delete(s);
      if (!pipe.ended) setTimeout(abort, oneWay);
    };
    client.on('error', abort).on('close', closed(client, toService));
    service.on('error', abort).on('close', closed(service, toClient));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ ...totals }),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
