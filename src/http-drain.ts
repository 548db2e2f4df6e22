import type http from "node:http";

/**
 * Graceful shutdown for plain HTTP: stop accepting, let requests already in flight finish (within
 * a budget), then drop idle keep-alive sockets. Room clients are disconnected by Colyseus after this.
 */
export class HttpDrain {
  private inflight = 0;

  constructor(private readonly server: http.Server) {
    server.on("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
      this.inflight++;
      res.once("close", () => this.inflight--);
    });
  }

  get inFlight(): number {
    return this.inflight;
  }

  async drain(budgetMs: number): Promise<void> {
    this.server.close();
    const deadline = Date.now() + budgetMs;
    while (this.inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    this.server.closeIdleConnections();
  }
}
