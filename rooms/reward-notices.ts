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
  constructor(
    private readonly presence: Presence,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.presence.subscribe(TOPIC, this.onMessage);
  }

  stop(): void {
    Promise.resolve(this.presence.unsubscribe(TOPIC, this.onMessage)).catch(() => undefined);
  }

  announce(notice: RewardNotice): void {
    Promise.resolve(this.presence.publish(TOPIC, notice)).catch((err: unknown) => this.logger.warn({ err }, "could not announce a reward to the rooms"));
  }

  private readonly onMessage = (notice: RewardNotice): void => {
    void this.sendLocally(notice).catch((err: unknown) => this.logger.warn({ err }, "could not tell a player's rooms about a reward"));
  };

  private async sendLocally(notice: RewardNotice): Promise<void> {
    const message = { source: notice.source, sourceId: notice.sourceId, currencies: notice.currencies, items: notice.items, balances: notice.balances };
    const listings = await matchMaker.query({ processId: matchMaker.processId });
    for (const listing of listings) {
      const room = matchMaker.getLocalRoomById(listing.roomId);
      if (!room) continue;
      for (const client of room.clients) {
        const auth = client.auth as PlayerAuth | undefined;
        if (auth?.userId === notice.userId && auth.app === notice.appId) client.send("reward", message);
      }
    }
  }
}
