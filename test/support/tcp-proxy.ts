/**
 * A TCP proxy a fault test puts between the server and a backing service it must not stop (the
 * shared PostgreSQL or Redis). It forwards, cuts every connection (reset, and resets new ones
 * until restored), or goes silent: connections stay open but nothing passes either way, as in a
 * network partition where packets are dropped. Silent either holds the bytes and passes them once
 * restored, as TCP's retransmissions would deliver them after a short partition, or drops them for
 * good, as when the peer behind a middlebox is gone: a connection that lost bytes is unusable.
 */
import net from "node:net";

export type ProxyMode = "forward" | "cut" | "silent";
export type Silence = "hold" | "drop";

interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
}

const discard = () => undefined;

export class TcpProxy {
  private mode: ProxyMode = "forward";
  private silence_: Silence = "hold";
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

  restore(): void {
    this.mode = "forward";
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
    if (!pair.upstream) {
      const upstream = net.connect(this.upstreamPort, this.upstreamHost);
      upstream.on("error", () => undefined);
      upstream.on("close", () => this.forget(pair));
      pair.upstream = upstream;
    }
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
  }

  private hold(pair: Pair): void {
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
