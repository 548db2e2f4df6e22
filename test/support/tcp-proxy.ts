/**
 * A TCP proxy a fault test puts between the server and a backing service it must not stop (the
 * shared PostgreSQL or Redis). It forwards, cuts every connection (reset, and resets new ones
 * until restored), or goes silent: connections stay open but nothing passes either way, as in a
 * network partition where packets are dropped. Silent either holds the bytes and passes them once
 * restored, as TCP's retransmissions would deliver them after a short partition, or drops them for
 * good, as when the peer behind a middlebox is gone: a connection that lost bytes is unusable.
 * Or it delays replies: requests reach the server at once (so writes are applied), its answers
 * come back late, past a client's timeout: the "written, but the answer was lost" case.
 */
import net from "node:net";

export type ProxyMode = "forward" | "cut" | "silent";
export type Silence = "hold" | "drop";

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
  /** A request matched `delayReplies`' filter: this connection's replies are late from then on. */
  late?: boolean;
}

const discard = () => undefined;
const proxyOf = new WeakMap<net.Socket, TcpProxy>();

export class TcpProxy {
  private mode: ProxyMode = "forward";
  private silence_: Silence = "hold";
  private replyDelayMs = 0;
  private lateAfter?: (request: Buffer) => boolean;
  private readonly pairs = new Set<Pair>();
  private server?: net.Server;

  private constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {}

  static async start(upstreamHost: string, upstreamPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(upstreamHost, upstreamPort);
    const server = net.createServer((socket) => proxy.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    proxy.server = server;
    return proxy;
  }

  get port(): number {
    return (this.server!.address() as net.AddressInfo).port;
  }

  get connections(): number {
    return this.pairs.size;
  }

  /** Resets every open connection, and every new one until `restore()`. */
  cut(): void {
    this.mode = "cut";
    for (const pair of this.pairs) this.reset(pair);
  }

  /** Stops passing bytes on every connection, open or new, without closing any. */
  silence(how: Silence = "hold"): void {
    this.mode = "silent";
    this.silence_ = how;
    for (const pair of this.pairs) this.hold(pair);
  }

  /**
   * Passes requests at once and every reply `ms` late (in order), on open and new connections,
   * until `restore()`: the server applies each write, the client gives up before it hears so.
   * With `after`, only a connection that has sent a request `after` matches (a chunk of its bytes,
   * e.g. `mongoCommand("insert", "users")`) gets its replies late, from that request on.
   */
  delayReplies(ms: number, after?: (request: Buffer) => boolean): void {
    this.mode = "forward";
    this.replyDelayMs = ms;
    this.lateAfter = after;
    for (const pair of this.pairs) this.flow(pair);
  }

  restore(): void {
    this.mode = "forward";
    this.replyDelayMs = 0;
    this.lateAfter = undefined;
    for (const pair of this.pairs) this.flow(pair);
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.reset(pair);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: net.Socket): void {
    const pair: Pair = { client };
    this.pairs.add(pair);
    client.on("error", () => undefined);
    client.on("close", () => this.forget(pair));
    if (this.mode === "cut") return this.reset(pair);
    client.pause();
    if (this.mode === "forward") this.flow(pair);
    else this.hold(pair);
  }

  /** Connects upstream on first use (a connection accepted while silent has none yet) and pipes. */
  private flow(pair: Pair): void {
    if (pair.client.destroyed) return;
    pair.client.off("data", discard);
    pair.upstream?.off("data", discard);
    pair.upstream?.off("data", this.delayed);
    // Piped once each way, whatever mode it comes from.
    pair.client.unpipe();
    pair.upstream?.unpipe();
    if (!pair.upstream) {
      const upstream = net.connect(this.upstreamPort, this.upstreamHost);
      upstream.on("error", () => undefined);
      upstream.on("close", () => this.forget(pair));
      pair.upstream = upstream;
      this.clientOf.set(upstream, pair.client);
      this.pairOf.set(upstream, pair);
      proxyOf.set(upstream, this);
      this.watch(pair);
    }
    pair.client.pipe(pair.upstream);
    if (this.replyDelayMs > 0) pair.upstream.on("data", this.delayed).resume();
    else pair.upstream.pipe(pair.client);
  }

  private readonly clientOf = new WeakMap<net.Socket, net.Socket>();
  private readonly pairOf = new WeakMap<net.Socket, Pair>();

  /** A reply chunk, written to its client `replyDelayMs` later (timers of equal delay keep the order). */
  private readonly delayed = function (this: net.Socket, chunk: Buffer): void {
    const proxy = proxyOf.get(this);
    const client = proxy?.clientOf.get(this);
    if (!proxy || !client) return;
    const pair = proxy.pairOf.get(this);
    const delay = !proxy.lateAfter || pair?.late ? proxy.replyDelayMs : 0;
    if (delay === 0 && !client.destroyed) {
      client.write(chunk);
      return;
    }
    setTimeout(() => {
      if (!client.destroyed) client.write(chunk);
    }, delay);
  };

  /** Watches requests for `delayReplies`' filter. */
  private watch(pair: Pair): void {
    pair.client.on("data", (chunk: Buffer) => {
      if (this.lateAfter?.(chunk)) pair.late = true;
    });
  }

  private hold(pair: Pair): void {
    pair.upstream?.off("data", this.delayed);
    for (const socket of [pair.client, pair.upstream]) {
      if (!socket) continue;
      socket.unpipe();
      // Dropping keeps reading (and so still notices a close); holding leaves bytes unread.
      if (this.silence_ === "drop") socket.on("data", discard).resume();
      else socket.pause();
    }
  }

  private reset(pair: Pair): void {
    if (!pair.client.destroyed) pair.client.resetAndDestroy();
    if (pair.upstream && !pair.upstream.destroyed) pair.upstream.resetAndDestroy();
    this.pairs.delete(pair);
  }

  /** One side closed: close the other too. */
  private forget(pair: Pair): void {
    if (!this.pairs.delete(pair)) return;
    pair.client.destroy();
    pair.upstream?.destroy();
  }
}

/**
 * A matcher for `delayReplies`: a MongoDB wire request for `command` on `collection`, as its BSON
 * body spells it (the command name as the first string element, the collection as its value).
 */
export function mongoCommand(command: string, collection: string): (request: Buffer) => boolean {
  const length = Buffer.alloc(4);
  length.writeInt32LE(Buffer.byteLength(collection) + 1);
  const needle = Buffer.concat([Buffer.from([0x02]), Buffer.from(`${command}\0`), length, Buffer.from(`${collection}\0`)]);
  return (request) => request.includes(needle);
}
