import crypto from "node:crypto";
import { AppError } from "../core/errors";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import type { Metrics } from "../observability/metrics";
import { parseIdentityNamespace } from "../core/apps";
import type { PlatformClient, TextScene, TextVerdict } from "../platforms/platform";
import type { PlatformApps } from "./platform-apps";
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
/** Which platform checks a player (per app) changes only when an identity is linked: a minute's staleness is harmless. */
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
  /** Which platform checks each player in each app, so a chat message costs no store query. */
  private readonly routes: TtlLru<Route>;

  constructor(
    private readonly apps: PlatformApps,
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

  /** The verdict on a player's text in `app` (checked with that app's credentials); never throws for a risky one (see `requireAcceptable`). */
  async check(userId: string, app: string, text: string, scene: TextScene): Promise<ModerationResult> {
    if (!this.options.enabled) return { verdict: "pass", source: "off", platform: null };
    const route = await this.routeFor(userId, app);
    const result = await this.decide(route, text, scene);
    this.options.metrics?.contentChecked(result.platform ?? NO_PLATFORM, result.verdict, result.source);
    if (result.verdict === "risky") {
      this.logger.info({ event: "content_moderated", userId, scene, platform: result.platform, source: result.source }, "text refused by moderation");
    }
    return result;
  }

  /** Throws `content_moderated` (422) for risky text; "review" passes (the platforms ask for human review, not a block). */
  async requireAcceptable(userId: string, app: string, text: string, scene: TextScene): Promise<ModerationResult> {
    const result = await this.check(userId, app, text, scene);
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
      const verdict = await this.tokens.withPlatformToken(platform, route.app, (accessToken) => checkText({ accessToken, openid, text, scene }));
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

  /**
   * The platform of the player's oldest identity of this app (its namespace: see identityNamespace)
   * on a platform the app is on; none for password-only players.
   */
  private async routeFor(userId: string, app: string): Promise<Route> {
    const routeKey = `${userId}\0${app}`;
    const known = this.routes.get(routeKey);
    if (known) return known;
    const identities = await this.store.listIdentities(userId);
    const identity = identities.find((i) => {
      const entry = this.apps.find(parseIdentityNamespace(i.platform).platform, app);
      return entry !== undefined && this.apps.namespaceOf(entry) === i.platform;
    });
    const platform = identity ? parseIdentityNamespace(identity.platform).platform : null;
    const route: Route = platform
      ? { platform, app, client: this.apps.get(platform, app).client, userId, platformId: identity!.platformId }
      : { platform: null, app, userId, platformId: "" };
    this.routes.set(routeKey, route);
    return route;
  }

  /** The openid of the player's latest login to the app on that platform (WeChat wants a recent one), else the stored identity. */
  private async openidFor(route: Route): Promise<string> {
    const kept = await this.custody.read(route.userId, route.app);
    return kept?.platform === route.platform && kept.openid ? kept.openid : route.platformId;
  }
}

interface Route {
  platform: string | null;
  app: string;
  client?: PlatformClient;
  userId: string;
  platformId: string;
}
