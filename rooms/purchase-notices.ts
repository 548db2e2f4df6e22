/**
 * The `purchase` room message: when an order is delivered, every process is told (presence), and
 * the one holding the player's room connections in that app sends them `purchase` with the order,
 * so a game shows the item at once instead of polling. Best effort: a player not in a room, or a
 * message lost with a Redis outage, still finds the order delivered through GET /api/payments/orders.
 */
import { matchMaker, type Presence } from "@colyseus/core";
import type { Logger } from "../src/logging/logger";
import type { PlayerAuth } from "./AuthenticatedRoom";

const TOPIC = "payments:purchase";

interface Notice {
  userId: string;
  /** Our app key: a player's rooms of another game are not told. */
  app: string;
  order: Record<string, unknown>;
}

export class PurchaseNotices {
  /** Pub/sub channels carry no key prefix (ioredis prefixes keys only): the deployment's prefix is put in the name, so deployments sharing a Redis do not hear each other. */
  private readonly topic: string;

  constructor(
    private readonly presence: Presence,
    private readonly logger: Logger,
    keyPrefix = "",
  ) {
    this.topic = `${keyPrefix}${TOPIC}`;
  }

  async start(): Promise<void> {
    await this.presence.subscribe(this.topic, this.onMessage);
  }

  stop(): void {
    Promise.resolve(this.presence.unsubscribe(this.topic, this.onMessage)).catch(() => undefined);
  }

  announce(notice: Notice): void {
    Promise.resolve(this.presence.publish(this.topic, notice)).catch((err: unknown) => this.logger.warn({ err }, "could not announce a delivered order to the rooms"));
  }

  private readonly onMessage = (notice: Notice): void => {
    void this.sendLocally(notice).catch((err: unknown) => this.logger.warn({ err }, "could not tell a player's rooms about a delivered order"));
  };

  private async sendLocally(notice: Notice): Promise<void> {
    const listings = await matchMaker.query({ processId: matchMaker.processId });
    for (const listing of listings) {
      const room = matchMaker.getLocalRoomById(listing.roomId);
      if (!room) continue;
      for (const client of room.clients) {
        const auth = client.auth as PlayerAuth | undefined;
        if (auth?.userId === notice.userId && auth.app === notice.app) client.send("purchase", notice.order);
      }
    }
  }
}
