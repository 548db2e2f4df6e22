/**
 * The `reward` room message: each grant that changed a wallet or inventory (a purchase, a delivered
 * order, an ad, a gift, mail, an operator) is published once by the process that recorded it; the
 * process holding the player's room connections in that app sends them `reward` with the source,
 * what was granted and the balances after. Best effort, like `purchase`: the wallet and inventory
 * routes always have the truth.
 */
import { matchMaker, type Presence } from "@colyseus/core";
import type { Logger } from "../src/logging/logger";
import type { RewardNotice } from "../src/services/economy/reward-granter";
import type { PlayerAuth } from "./AuthenticatedRoom";

const TOPIC = "economy:reward";

export class RewardNotices {
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

  announce(notice: RewardNotice): void {
    Promise.resolve(this.presence.publish(this.topic, notice)).catch((err: unknown) => this.logger.warn({ err }, "could not announce a reward to the rooms"));
  }

  private readonly onMessage = (notice: RewardNotice): void => {
    void this.sendLocally(notice).catch((err: unknown) => this.logger.warn({ err }, "could not tell a player's rooms about a reward"));
  };

  private async sendLocally(notice: RewardNotice): Promise<void> {
    const message = { source: notice.source, sourceId: notice.sourceId, currencies: notice.currencies, items: notice.items, balances: notice.balances };
    const listings = await matchMaker.query({ processId: matchMaker.processId });
    // A room may be listed more than once (the Redis driver's cache can hold a stale copy beside the
    // current one): each local room is told once.
    for (const roomId of new Set(listings.map((listing) => listing.roomId))) {
      const room = matchMaker.getLocalRoomById(roomId);
      if (!room) continue;
      for (const client of room.clients) {
        const auth = client.auth as PlayerAuth | undefined;
        if (auth?.userId === notice.userId && auth.app === notice.appId) client.send("reward", message);
      }
    }
  }
}
