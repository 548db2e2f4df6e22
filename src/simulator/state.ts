/** What the simulator remembers between requests: apps, consumed codes and token books. */
import { ConsumedCodes } from "./codes";
import type { CredentialCheck, PlatformSimContext } from "./platform-simulator";
import { TokenBook, type TokenPolicy } from "./tokens";

export interface SimulatorApp {
  platform: string;
  appId: string;
  appSecret: string;
}

export class SimulatorState {
  readonly consumed: ConsumedCodes;
  private readonly apps = new Map<string, SimulatorApp>();
  private readonly tokenBooks = new Map<string, TokenBook>();

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
  }

  /** The state as one platform's handlers see it. */
  contextFor(platform: string, tokenPolicy: TokenPolicy): PlatformSimContext {
    return {
      platform,
      consumed: this.consumed,
      checkCredentials: (appId, secret) => this.checkCredentials(platform, appId, secret),
      tokens: (appId) => this.tokens(platform, appId, tokenPolicy),
    };
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
