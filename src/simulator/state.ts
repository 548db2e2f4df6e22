/** What the simulator remembers between requests: apps, consumed codes, token books and session keys. */
import { ConsumedCodes, MAX_REMEMBERED_CODES } from "./codes";
import { ContentCheckQuota, DEFAULT_CONTENT_CHECK_SETTINGS, type ContentCheckSettings } from "./content-security";
import type { CredentialCheck, PlatformSimContext } from "./platform-simulator";
import { SocialSimState } from "./social-state";
import { TokenBook, type TokenPolicy, type TokenStatus } from "./tokens";

export interface SimulatorApp {
  platform: string;
  appId: string;
  appSecret: string;
}

/** Who a session key was issued to. */
export interface IssuedSessionKey {
  platform: string;
  appId: string;
  /** "" when the login gave no openid. */
  openid: string;
}

export class SimulatorState {
  readonly consumed: ConsumedCodes;
  private readonly apps = new Map<string, SimulatorApp>();
  private readonly tokenBooks = new Map<string, TokenBook>();
  /** Current session key per (platform, app, openid). */
  private readonly currentKeys = new Map<string, string>();
  /** Last login (ms) per (platform, app, openid), for WeChat's recent-visit rule. */
  private readonly lastLogins = new Map<string, number>();
  /** Content-check limits; tests change them at run time (`RunningSimulator.setContentCheck`). */
  contentCheck: ContentCheckSettings = { ...DEFAULT_CONTENT_CHECK_SETTINGS };
  private readonly contentQuota = new ContentCheckQuota(() => this.contentCheck);
  /**
   * WeChat's mini-game check has a limit of its own: the sheet's "about 10,000 per minute per app"
   * (unconfirmed); no daily limit is documented, so none is simulated.
   */
  gameContentCheck: Pick<ContentCheckSettings, "perMinute" | "perDay"> = { perMinute: 10_000, perDay: Number.MAX_SAFE_INTEGER };
  private readonly gameContentQuota = new ContentCheckQuota(() => ({ ...this.contentCheck, ...this.gameContentCheck }));
  readonly social: SocialSimState;
  /** Every key issued, for the encrypt helper; bounded like consumed codes, oldest dropped first. */
  private readonly issuedKeys = new Map<string, IssuedSessionKey>();

  constructor(
    apps: readonly SimulatorApp[],
    readonly now: () => number,
  ) {
    for (const app of apps) {
      const key = `${app.platform}\0${app.appId}`;
      if (this.apps.has(key)) throw new Error(`simulator: app ${app.appId} is listed twice for ${app.platform}`);
      this.apps.set(key, { ...app });
    }
    this.consumed = new ConsumedCodes(now);
    this.social = new SocialSimState(now);
  }

  /** The state as one platform's handlers see it. */
  contextFor(platform: string, tokenPolicy: TokenPolicy): PlatformSimContext {
    return {
      platform,
      consumed: this.consumed,
      checkCredentials: (appId, secret) => this.checkCredentials(platform, appId, secret),
      tokens: (appId) => this.tokens(platform, appId, tokenPolicy),
      tokenStatus: (token) => (tokenPolicy.shape && !tokenPolicy.shape.test(token) ? { status: "malformed" } : this.findToken(platform, token)),
      issueSessionKey: (appId, openid, sessionKey) => this.issueSessionKey(sessionKey, { platform, appId, openid }),
      currentSessionKey: (appId, openid) => this.currentKeys.get(`${platform}\0${appId}\0${openid}`),
      loggedInRecently: (appId, openid) => {
        const at = this.lastLogins.get(`${platform}\0${appId}\0${openid}`);
        return at !== undefined && this.now() - at <= this.contentCheck.recentLoginMs;
      },
      takeContentCheckQuota: (appId) => this.contentQuota.take(`${platform}\0${appId}`, this.now()),
      takeGameContentCheckQuota: (appId) => this.gameContentQuota.take(`${platform}\0${appId}`, this.now()),
      social: this.social,
      now: this.now,
    };
  }

  sessionKeyOwner(sessionKey: string): IssuedSessionKey | undefined {
    return this.issuedKeys.get(sessionKey);
  }

  private findToken(platform: string, token: string): { status: TokenStatus; appId?: string } {
    for (const [key, book] of this.tokenBooks) {
      const [bookPlatform, appId] = key.split("\0");
      if (bookPlatform !== platform) continue;
      const status = book.status(token);
      if (status !== "unknown") return { status, appId };
    }
    return { status: "unknown" };
  }

  private issueSessionKey(sessionKey: string, issued: IssuedSessionKey): void {
    if (issued.openid) {
      const player = `${issued.platform}\0${issued.appId}\0${issued.openid}`;
      this.currentKeys.delete(player); // re-inserted last, so eviction drops the least recent login
      this.currentKeys.set(player, sessionKey);
      evictOldest(this.currentKeys);
      this.lastLogins.delete(player);
      this.lastLogins.set(player, this.now());
      evictOldest(this.lastLogins);
    }
    this.issuedKeys.set(sessionKey, issued);
    evictOldest(this.issuedKeys);
  }

  private checkCredentials(platform: string, appId: string, secret: string): CredentialCheck {
    const app = this.apps.get(`${platform}\0${appId}`);
    if (!app) return "unknown_appid";
    return app.appSecret === secret ? "ok" : "wrong_secret";
  }

  private tokens(platform: string, appId: string, policy: TokenPolicy): TokenBook {
    const key = `${platform}\0${appId}`;
    let book = this.tokenBooks.get(key);
    if (!book) this.tokenBooks.set(key, (book = new TokenBook(policy, this.now)));
    return book;
  }
}

function evictOldest(map: Map<string, unknown>): void {
  if (map.size <= MAX_REMEMBERED_CODES) return;
  const oldest = map.keys().next().value;
  if (oldest !== undefined) map.delete(oldest);
}
