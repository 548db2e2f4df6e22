import type http from "node:http";
import net from "node:net";

export interface DrainOptions {
  /**
   * Keep accepting at least this long after the signal, so connections already queued are served,
   * not reset; longer while clients are still connecting (see QUIET_MS), up to twice as long: probes
   * that never stop (a load balancer's) must not hold the listener open. Connections the kernel has
   * already completed are taken in whatever it takes, up to half the budget (stillQueued).
   */
  acceptWindowMs: number;
  /** Give up waiting for in-flight requests after this long (counted from the signal). */
  budgetMs: number;
}

const SETTLE_MS = 100;
/**
 * Stop listening only after this long without a new connection. Every answer during the drain says
 * Connection: close, so a client with requests still queued comes back on a new connection; closing
 * the listener under it would reset the connections waiting in the kernel's accept queue.
 */
const QUIET_MS = 150;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const nextTurn = () => new Promise((r) => setImmediate(r));

/**
 * Graceful shutdown for plain HTTP: answer everything with `Connection: close`, keep accepting
 * briefly, stop listening, let requests in flight finish, then drop idle sockets. Room clients are
 * disconnected by Colyseus after this.
 */
export class HttpDrain {
  private readonly inflight = new Set<http.ServerResponse>();
  private draining = false;
  private lastConnectionAt = 0;
  private connections = 0;

  constructor(private readonly server: http.Server) {
    // First in line, before the app's listener: a synchronous route (a health probe) has already
    // sent its headers when a later listener runs, and setting one then throws.
    server.prependListener("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
      this.inflight.add(res);
      res.once("close", () => this.inflight.delete(res));
      if (this.draining) closeAfter(res);
    });
    server.on("connection", () => {
      this.lastConnectionAt = Date.now();
      this.connections++;
    });
  }

  get inFlight(): number {
    return this.inflight.size;
  }

  async drain(options: DrainOptions): Promise<void> {
    const deadline = Date.now() + options.budgetMs;
    this.draining = true;
    // Requests already in flight too: answered keep-alive, their sockets would carry the client's
    // next request into the moment the process exits, and that request would be reset.
    for (const res of this.inflight) closeAfter(res);
    const started = Date.now();
    const quietUntil = started + Math.min(2 * options.acceptWindowMs, options.budgetMs / 2);
    const queueUntil = started + options.budgetMs / 2;
    await sleep(Math.min(options.acceptWindowMs, options.budgetMs));
    for (;;) {
      const queued = await this.stillQueued();
      const now = Date.now();
      if (now >= queueUntil) break;
      if (!queued && (now >= quietUntil || now - this.lastConnectionAt >= QUIET_MS)) break;
      if (!queued) await sleep(20);
    }
    // net.Server#close only stops listening. http.Server#close would also destroy every socket
    // without an active request, including ones just accepted whose request is not read yet.
    net.Server.prototype.close.call(this.server);
    while (Date.now() < deadline) {
      if (this.inflight.size === 0) {
        await sleep(SETTLE_MS); // a just-accepted socket may still deliver its request
        if (this.inflight.size === 0) break;
      } else {
        await sleep(20);
      }
    }
    this.server.closeIdleConnections();
  }

  /**
   * Whether the kernel still holds connections it completed and this process has not accepted. Node
   * accepts at most one connection per turn of the event loop, so a busy process takes a burst in
   * slowly (seen: 145 of 300 still queued a second after SIGTERM, during a burst of logins), and
   * closing the listener resets every one still queued. A whole turn that accepted nothing means the
   * queue was empty when that turn polled: the first immediate ends the current turn, the second the next.
   */
  private async stillQueued(): Promise<boolean> {
    await nextTurn();
    const before = this.connections;
    await nextTurn();
    return this.connections !== before;
  }
}

function closeAfter(res: http.ServerResponse): void {
  if (!res.headersSent) res.setHeader("connection", "close");
}
