/**
 * WeChat's risk rank (getuserriskrank) before grants of value (docs/growth.md): where the studio lists
 * a grant's source in RISK_RANK_CHECKS, the player's rank is looked up (cached per player for
 * RISK_RANK_CACHE_SEC) and a rank at or above RISK_RANK_THRESHOLD refuses the grant (403
 * `risky_player`, nothing recorded in the ledger) or flags it (granted, logged `risk_rank_flagged`).
 *
 * WeChat requires the player's IP (client_ip). A platform callback (rewarded ad, gift push) brings
 * none, so the game calls `POST /api/growth/risk-check` once a session (and every growth route does the
 * same): the rank is read then with the request's IP, and the IP is remembered for the cache's life.
 * A guarded grant for a player with neither a cached rank nor a remembered IP is refused in `refuse`
 * mode (a client cannot dodge the check by skipping the call) and logged `risk_rank_unchecked` in
 * `flag` mode. While WeChat cannot be asked the grant goes ahead, logged `risk_rank_unchecked`: a risk
 * check must not take rewards from every player when WeChat is down.
 */
import { AppError } from "../../core/errors";
import type { Cache } from "../../core/ports/cache";
import type { RewardGrant, RewardGrantResult, RewardGranter, RewardSource } from "../../core/ports/reward-grants";
import type { Logger } from "../../logging/logger";

export interface RiskRankSettings {
  /** Reward sources checked before they are granted. */
  checks: readonly string[];
  threshold: number;
  action: "refuse" | "flag";
  cacheSec: number;
}

export interface RiskRankDeps {
  cache: Pick<Cache, "get" | "set">;
  settings: RiskRankSettings;
  /** The player's WeChat openid on the app: "" or null when they have none there (not checked then). */
  openidOf(app: string, userId: string): Promise<string | null>;
  /** WeChat's getuserriskrank for the app's player. */
  askWechat(app: string, openid: string, clientIp: string): Promise<number>;
  logger: Logger;
}

export type RiskVerdict = { checked: false; reason: "not_wechat" | "no_client_ip" | "platform_unavailable" } | { checked: true; rank: number; risky: boolean };

export class RiskRanks {
  constructor(private readonly deps: RiskRankDeps) {}

  checks(source: RewardSource): boolean {
    return this.deps.settings.checks.includes(source);
  }

  /** Remembers the IP a player's request came from, for checks a platform callback triggers later. */
  async remember(app: string, userId: string, clientIp: string | undefined): Promise<void> {
    if (!clientIp || this.deps.settings.checks.length === 0) return;
    await this.deps.cache.set(ipKey(app, userId), clientIp, Math.max(60, this.deps.settings.cacheSec));
  }

  /** The game's call once a session: remembers the IP and reads the rank now, so later checks hit the cache. */
  async refresh(app: string, userId: string, clientIp: string | undefined): Promise<{ checked: boolean }> {
    if (this.deps.settings.checks.length === 0) return { checked: false };
    await this.remember(app, userId, clientIp);
    return { checked: (await this.verdict(app, userId)).checked };
  }

  async verdict(app: string, userId: string): Promise<RiskVerdict> {
    const cached = await this.deps.cache.get(rankKey(app, userId));
    if (cached !== null) return this.judge(Number(cached));
    const openid = await this.deps.openidOf(app, userId);
    if (!openid) return { checked: false, reason: "not_wechat" };
    const clientIp = await this.deps.cache.get(ipKey(app, userId));
    if (!clientIp) return { checked: false, reason: "no_client_ip" };
    let rank: number;
    try {
      rank = await this.deps.askWechat(app, openid, clientIp);
    } catch (err) {
      this.deps.logger.warn({ err, event: "risk_rank_unavailable", app, userId }, "WeChat's risk rank could not be read");
      return { checked: false, reason: "platform_unavailable" };
    }
    if (this.deps.settings.cacheSec > 0) await this.deps.cache.set(rankKey(app, userId), String(rank), this.deps.settings.cacheSec);
    return this.judge(rank);
  }

  /** Throws `risky_player` when the grant is to be refused; logs what it flags or could not check. */
  async gate(grant: Pick<RewardGrant, "appId" | "userId" | "source" | "sourceId">): Promise<void> {
    if (!this.checks(grant.source)) return;
    const verdict = await this.verdict(grant.appId, grant.userId);
    const fields = { app: grant.appId, userId: grant.userId, source: grant.source, sourceId: grant.sourceId };
    if (!verdict.checked) {
      if (verdict.reason === "not_wechat") return;
      if (verdict.reason === "no_client_ip" && this.deps.settings.action === "refuse") {
        this.deps.logger.warn({ event: "risk_rank_refused", ...fields, reason: verdict.reason }, "a guarded grant was refused: the player's rank is unknown and no IP of theirs is known to ask WeChat with");
        throw new AppError("risky_player", { data: { source: grant.source, reason: verdict.reason } });
      }
      this.deps.logger.warn({ event: "risk_rank_unchecked", ...fields, reason: verdict.reason }, "a grant the risk rank guards went ahead unchecked");
      return;
    }
    if (!verdict.risky) return;
    if (this.deps.settings.action === "refuse") {
      this.deps.logger.warn({ event: "risk_rank_refused", ...fields, rank: verdict.rank }, "a grant was refused: the player's WeChat risk rank is at or above the threshold");
      throw new AppError("risky_player", { data: { source: grant.source } });
    }
    this.deps.logger.warn({ event: "risk_rank_flagged", ...fields, rank: verdict.rank }, "a grant to a player WeChat rates risky was made (RISK_RANK_ACTION=flag)");
  }

  private judge(rank: number): RiskVerdict {
    return { checked: true, rank, risky: rank >= this.deps.settings.threshold };
  }
}

/** The granter every reward source uses, with the risk check before the sources the studio lists. */
export function riskCheckedGranter(inner: RewardGranter, ranks: RiskRanks): RewardGranter {
  return {
    async grant(grant: RewardGrant): Promise<RewardGrantResult> {
      await ranks.gate(grant);
      return inner.grant(grant);
    },
  };
}

const rankKey = (app: string, userId: string) => `growth:risk_rank:${app}:${userId}`;
const ipKey = (app: string, userId: string) => `growth:risk_ip:${app}:${userId}`;
