import type http from "node:http";
import net from "node:net";

export interface DrainOptions {
  /** Keep accepting this long after the signal, so connections already queued are served, not reset. */
  acceptWindowMs: number;
  /** Give up waiting for in-flight requests after this long (counted from the signal). */
  budgetMs: number;
}

const SETTLE_MS = 100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Graceful shutdown for plain HTTP: answer everything with `Connection: close`, keep accepting
 * briefly, stop listening, let requests in flight finish, then drop idle sockets. Room clients are
 * disconnected by Colyseus after this.
 */
export class HttpDrain {
  private inflight = 0;
  private draining = false;

  constructor(private readonly server: http.Server) {
    // First in line, before the app's listener: a synchronous route (a health probe) has already
    // sent its headers when a later listener runs, and setting one then throws.
    server.prependListener("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
      this.inflight++;
      res.once("close", () => this.inflight--);
      if (this.draining && !res.headersSent) res.setHeader("connection", "close");
    });
  }

  get inFlight(): number {
    return this.inflight;
  }

  async drain(options: DrainOptions): Promise<void> {
    const deadline = Date.now() + options.budgetMs;
    this.draining = true;
    await sleep(Math.min(options.acceptWindowMs, options.budgetMs));
    // net.Server#close only stops listening. http.Server#close would also destroy every socket
    // without an active request, including ones just accepted whose request is not read yet.
    net.Server.prototype.close.call(this.server);
    while (Date.now() < deadline) {
      if (this.inflight === 0) {
        await sleep(SETTLE_MS); // a just-accepted socket may still deliver its request
        if (this.inflight === 0) break;
      } else {
        await sleep(20);
      }
    }
    this.server.closeIdleConnections();
  }
}
