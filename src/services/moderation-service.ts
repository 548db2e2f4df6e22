import crypto from "node:crypto";
import { AppError } from "../core/errors";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import type { PlatformClient, TextScene, TextVerdict } from "../platforms/platform";
import type { PlatformTokenService } from "./platform-token-service";
import type { SessionKeyCustody } from "./session-key-custody";
import { TtlLru } from "./ttl-lru";
import type { WordList } from "./word-list";

export type { TextScene, TextVerdict } from "../platforms/platform";

/** Who decided: the platform, a cached platform verdict, the local word list, or nobody (moderation off). */
export type ModerationSource = "platform" | "cache" | "word_list" | "off";

export interface ModerationResult {
  verdict: TextVerdict;
  source: ModerationSource;
  /** The platform whose check applies to the player; null for a player without a platform identity. */
  platform: string | null;
}

export interface ModerationOptions {
  enabled: boolean;
  /** When the platform's check fails: decide by the word list, or refuse the text. */
  fallback: "word_list" | "refuse";
  cacheTtlSec: number;
  cacheEntries: number;
  now?: () => number;
  metrics?: Metrics;
}

/** Metric label of players the word list checks because they have no platform identity. */
const NO_PLATFORM = "none";
/** Which platform checks a player changes only when an identity is linked: a minute's staleness is harmless. */
const ROUTE_TTL_MS = 60_000;
const ROUTE_ENTRIES = 10_000;

/** Hashed, so the verdict cache holds no player text. */
const verdictKey = (platform: string, scene: TextScene, text: string) =>
  `${platform}\0${scene}\0${crypto.createHash("sha256").update(text).digest("base64url")}`;

/**
 * Content security for what players type. The platform of the player's platform identity checks the
 * text with its own API (through the self-healing token, so a token cancelled mid-run costs one
 * retry, not a failure); players with only a password, and platforms without a check, are judged by
 * the local word list, as is any text while the platform's check is unavailable (unless the policy
 * is to refuse). Knows nothing of HTTP or rooms: the edges map `content_moderated` to their replies.
 */
export class ModerationService {
  /** Platform verdicts for identical text, so repeats (spam, "gg", a copied nickname) cost no platform quota. */
  private readonly verdicts: TtlLru<TextVerdict>;
  /** Which platform checks each player, so a chat message costs no store query. */
  private readonly routes: TtlLru<Route>;

  constructor(
    private readonly clients: ReadonlyMap<string, PlatformClient>,
    private readonly store: UserStore,
    private readonly custody: SessionKeyCustody,
    private readonly tokens: PlatformTokenService,
    private readonly words: WordList,
    private readonly logger: Logger,
    private readonly options: ModerationOptions,
  ) {
    const now = options.now ?? Date.now;
    this.verdicts = new TtlLru(options.cacheEntries, options.cacheTtlSec * 1000, now);
    this.routes = new TtlLru(ROUTE_ENTRIES, ROUTE_TTL_MS, now);
  }

  /** The verdict on a player's text; never throws for a risky one (see `requireAcceptable`). */
  async check(userId: string, text: string, scene: TextScene): Promise<ModerationResult> {
    if (!this.options.enabled) return { verdict: "pass", source: "off", platform: null };
    const route = await this.routeFor(userId);
    const result = await this.decide(route, text, scene);
    this.options.metrics?.contentChecked(result.platform ?? NO_PLATFORM, result.verdict, result.source);
    if (result.verdict === "risky") {
      this.logger.info({ event: "content_moderated", userId, scene, platform: result.platform, source: result.source }, "text refused by moderation");
    }
    return result;
  }

  /** Throws `content_moderated` (422) for risky text; "review" passes (the platforms ask for human review, not a block). */
  async requireAcceptable(userId: string, text: string, scene: TextScene): Promise<ModerationResult> {
    const result = await this.check(userId, text, scene);
    if (result.verdict === "risky") throw new AppError("content_moderated");
    return result;
  }

  private async decide(route: Route, text: string, scene: TextScene): Promise<ModerationResult> {
    const { platform, client } = route;
    const checkText = client?.checkText?.bind(client);
    if (!platform || !checkText) return { verdict: this.wordListVerdict(text), source: "word_list", platform };

    const key = verdictKey(platform, scene, text);
    const cached = this.verdicts.get(key);
    if (cached) return { verdict: cached, source: "cache", platform };
    try {
      const openid = await this.openidFor(route);
      const verdict = await this.tokens.withPlatformToken(platform, (accessToken) => checkText({ accessToken, openid, text, scene }));
      this.verdicts.set(key, verdict);
      return { verdict, source: "platform", platform };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const reason = typeof err.data.reason === "string" ? err.data.reason : err.code;
      this.options.metrics?.contentCheckFellBack(platform, reason);
      this.logger.warn(
        { event: "content_check_unavailable", platform, reason, fallback: this.options.fallback },
        "the platform's content check failed; applying the fallback policy",
      );
      if (this.options.fallback === "refuse") throw err;
      return { verdict: this.wordListVerdict(text), source: "word_list", platform };
    }
  }

  private wordListVerdict(text: string): TextVerdict {
    return this.words.matches(text) ? "risky" : "pass";
  }

  /** The platform of the player's oldest identity on an enabled platform; none for password-only players. */
  private async routeFor(userId: string): Promise<Route> {
    const known = this.routes.get(userId);
    if (known) return known;
    const identities = await this.store.listIdentities(userId);
    const identity = identities.find((i) => this.clients.has(i.platform));
    const route: Route = identity
      ? { platform: identity.platform, client: this.clients.get(identity.platform), userId, platformId: identity.platformId }
      : { platform: null, userId, platformId: "" };
    this.routes.set(userId, route);
    return route;
  }

  /** The openid of the player's latest login on that platform (WeChat wants a recent one), else the stored identity. */
  private async openidFor(route: Route): Promise<string> {
    const kept = await this.custody.read(route.userId);
    return kept?.platform === route.platform && kept.openid ? kept.openid : route.platformId;
  }
}

interface Route {
  platform: string | null;
  client?: PlatformClient;
  userId: string;
  platformId: string;
}
