/**
 * Season rewards: when a period has ended, its final ranking is paid once through the reward
 * ledger (the RewardGranter port), however many processes notice the end and whatever kills them.
 *
 * 1. The plan: the winners (rank, user, score) of the ended period, read from the store, inserted
 *    once (`claimPayoutPlan`); every later step works from that stored plan, never from a fresh
 *    ranking, so a late write or a restart cannot change who is paid.
 * 2. The grants: one per winner, keyed `<board>:<seq>:<userId>` (source `leaderboard`), so the
 *    ledger applies each once however often it is repeated.
 *    After each grant the player is told by mail (`notify`, a notice with nothing attached, whose
 *    id is derived from the same key so a repeat writes nothing new). The reward is granted here
 *    rather than attached to the mail because then "paid once" rests on one key in one ledger, and
 *    a player who never opens the mail is still paid; an attachment would add a second, claimable
 *    path to the same value and tie the payout to the mail's expiry.
 * 3. The end: `finishPayout`, after which nobody looks at the period again.
 * A process killed anywhere leaves a plan without its end; the next tick of any process redoes 2
 * and 3, and the grants already made change nothing. A lease in the shared cache keeps the
 * processes from all paying the same period at once (it expires if its holder dies).
 */
import crypto from "node:crypto";
import type { BoardDefinition, BoardReward } from "../../config/settings/leaderboards";
import type { Cache } from "../../core/ports/cache";
import type { LeaderboardStore, PayoutPlan, PeriodKey } from "../../core/ports/leaderboard-store";
import type { RewardGranter } from "../../core/ports/reward-grants";

export const PAYOUT_LEASE_MS = 30_000;

export interface PayoutLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** What a paid player is told: `origin` is unique per (board, period, player), so a repeat is one mail. */
export interface PayoutNotice {
  app: string;
  userId: string;
  origin: string;
  title: string;
  body: string;
}

export class SeasonPayouts {
  /** Periods this process saw finished: never looked at again. */
  private readonly finished = new Set<string>();

  constructor(
    private readonly store: LeaderboardStore,
    private readonly cache: Cache,
    private readonly granter: RewardGranter | undefined,
    private readonly logger: PayoutLogger,
    private readonly now: () => number,
    /** Called after each grant; tests stop a process there. */
    private readonly afterGrant: (key: PeriodKey, rank: number) => Promise<void> = async () => undefined,
    /** How long a payer holds a period before another process may take over (its death frees it then). */
    private readonly leaseMs = PAYOUT_LEASE_MS,
    /** Tells a paid player of the reward (the mail service); idempotent by `origin`. */
    private readonly notify?: (notice: PayoutNotice) => Promise<void>,
  ) {}

  /** The reward for a rank, if any. */
  static rewardFor(board: BoardDefinition, rank: number): BoardReward | undefined {
    return board.rewards.find((r) => rank >= r.ranks[0] && rank <= r.ranks[1]);
  }

  /** Pays the ended period `key` unless it is paid or another process is paying it now. */
  async settle(board: BoardDefinition, key: PeriodKey): Promise<"paid" | "busy" | "nothing"> {
    const id = `${key.app}:${key.board}:${key.seq}`;
    if (board.rewards.length === 0 || key.seq < 1 || this.finished.has(id)) return "nothing";
    if (await this.store.payoutFinished(key)) {
      this.finished.add(id);
      return "nothing";
    }
    if (!this.granter) {
      this.logger.warn({ board: key.board, app: key.app, seq: key.seq }, "leaderboard rewards wait: no reward ledger is configured");
      return "busy";
    }
    const lease = `lb-payout:${id}`;
    const token = crypto.randomBytes(8).toString("hex");
    if (!(await this.cache.setIfAbsent(lease, token, this.leaseMs))) return "busy";
    try {
      const plan = (await this.store.payoutPlan(key)) ?? (await this.store.claimPayoutPlan(key, await this.plan(board, key)));
      for (const winner of plan.winners) {
        const reward = SeasonPayouts.rewardFor(board, winner.rank);
        if (!reward) continue;
        const sourceId = `${key.board}:${key.seq}:${winner.userId}`;
        const name = board.title ?? key.board;
        await this.granter.grant({
          appId: key.app,
          userId: winner.userId,
          source: "leaderboard",
          sourceId,
          ...(reward.currencies ? { currencies: reward.currencies } : {}),
          ...(reward.items ? { items: reward.items } : {}),
          reason: `${name} period ${key.seq}, rank ${winner.rank}`,
        });
        await this.notify?.({
          app: key.app,
          userId: winner.userId,
          origin: `leaderboard:${sourceId}`,
          title: `${name}: rank ${winner.rank}`.slice(0, 100),
          body: `You finished rank ${winner.rank} of ${name} (period ${key.seq}). Your reward is already in your account: ${describeReward(reward)}.`,
        });
        await this.afterGrant(key, winner.rank);
      }
      await this.store.finishPayout(key, this.now());
      this.finished.add(id);
      this.logger.info({ app: key.app, board: key.board, seq: key.seq, winners: plan.winners.length }, "leaderboard period rewards paid");
      return "paid";
    } finally {
      await this.cache.deleteIfEquals(lease, token).catch(() => undefined);
    }
  }

  /** The ended period's winners, from the store (the record of truth), down to the last rewarded rank. */
  private async plan(board: BoardDefinition, key: PeriodKey): Promise<PayoutPlan> {
    const last = Math.max(...board.rewards.map((r) => r.ranks[1]));
    const winners: PayoutPlan["winners"] = [];
    let after: Parameters<LeaderboardStore["top"]>[3];
    while (winners.length < last) {
      const page = await this.store.top(key, board.order, Math.min(1000, last - winners.length), after);
      for (const r of page) winners.push({ rank: winners.length + 1, userId: r.userId, score: r.score });
      if (page.length === 0) break;
      const tail = page[page.length - 1];
      after = { score: tail.score, subscore: tail.subscore, reachedAt: tail.reachedAt, userId: tail.userId };
    }
    return { winners, createdAt: this.now() };
  }
}

function describeReward(reward: BoardReward): string {
  const parts = [
    ...Object.entries(reward.currencies ?? {}).map(([currency, amount]) => `${amount} ${currency}`),
    ...(reward.items ?? []).map((item) => `${item.count} × ${item.itemId}`),
  ];
  return parts.join(", ");
}
