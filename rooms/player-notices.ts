/**
 * Room messages a service's event sends to one player's rooms, wherever they are: the process where
 * the event happened publishes it once (presence), and the process holding the player's room
 * connections in that app sends the message to them. Best effort: a player not in a room, or a
 * message lost with a Redis outage, still finds the truth through the HTTP routes.
 *
 *   purchase   an order was delivered: the order (GET /api/payments/orders has it too), so a game
 *              shows the item at once instead of polling
 *   reward     a grant changed a wallet or inventory (a purchase, a delivered order, an ad, a gift,
 *              mail, an operator): source, what was granted, balances after (the wallet and
 *              inventory routes have the truth)
 */
import { matchMaker, type Presence } from "@colyseus/core";
import type { Logger } from "../src/logging/logger";
import type { PlayerAuth } from "./AuthenticatedRoom";

/** Whom a notice is for (our app key: a player's rooms of another game are not told) and what they are sent. */
export interface PlayerNotice {
  userId: string;
  app: string;
  message: unknown;
}

export class PlayerNotices {
  /** Pub/sub channels carry no key prefix (ioredis prefixes keys only): the deployment's prefix is in the name, so deployments sharing a Redis do not hear each other. */
  private readonly topic: string;

  constructor(
    private readonly presence: Presence,
    private readonly logger: Logger,
    /** The room message's type, e.g. `purchase` or `reward`. */
    private readonly type: string,
    keyPrefix = "",
  ) {
    this.topic = `${keyPrefix}notices:${type}`;
  }

  async start(): Promise<void> {
    await this.presence.subscribe(this.topic, this.onMessage);
  }

  stop(): void {
    Promise.resolve(this.presence.unsubscribe(this.topic, this.onMessage)).catch(() => undefined);
  }

  announce(notice: PlayerNotice): void {
    Promise.resolve(this.presence.publish(this.topic, notice)).catch((err: unknown) => this.logger.warn({ err, type: this.type }, "could not announce a notice to the rooms"));
  }

  private readonly onMessage = (notice: PlayerNotice): void => {
    void this.sendLocally(notice).catch((err: unknown) => this.logger.warn({ err, type: this.type }, "could not tell a player's rooms"));
  };

  private async sendLocally(notice: PlayerNotice): Promise<void> {
    const listings = await matchMaker.query({ processId: matchMaker.processId });
    // A room may be listed more than once (the Redis driver's cache can hold a stale copy beside the
    // current one): each local room is told once.
    for (const roomId of new Set(listings.map((listing) => listing.roomId))) {
      const room = matchMaker.getLocalRoomById(roomId);
      if (!room) continue;
      for (const client of room.clients) {
        const auth = client.auth as PlayerAuth | undefined;
        if (auth?.userId === notice.userId && auth.app === notice.app) client.send(this.type, notice.message);
      }
    }
  }
}
