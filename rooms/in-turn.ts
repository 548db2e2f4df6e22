/**
 * One client's messages handled one after the other, for handlers that wait (a mute read, the
 * platform's content check): without it a short message sent second can be shown before a long one
 * sent first, since each check takes its own time. Clients do not wait for each other.
 *
 *   private readonly turns = new ClientTurns();
 *   this.onMessage("chat", (client, message) => this.turns.run(client.sessionId, () => this.handleChat(client, message)));
 *   // and in onLeave: this.turns.forget(client.sessionId);
 */
export class ClientTurns {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once this client's earlier work has ended (however it ended); `onError` hears a failure of its own. */
  run(sessionId: string, work: () => Promise<void>, onError: (err: unknown) => void = () => undefined): Promise<void> {
    const turn = (this.tails.get(sessionId) ?? Promise.resolve()).then(work).catch(onError);
    this.tails.set(sessionId, turn);
    void turn.then(() => {
      if (this.tails.get(sessionId) === turn) this.tails.delete(sessionId);
    });
    return turn;
  }

  /** The client left: nothing is kept for it (work already queued still runs). */
  forget(sessionId: string): void {
    this.tails.delete(sessionId);
  }

  /** Clients with work queued or running (for tests and metrics). */
  get size(): number {
    return this.tails.size;
  }
}
