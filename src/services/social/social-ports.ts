/**
 * What the social services need from the rest of the server, as narrow ports the composition root
 * fills with the real services (their signatures match): the kept session keys, the self-healing
 * platform tokens, the apps' social clients and the players' openids. Every one is asked for one app
 * named explicitly (our key of it: `default` or an APPS_FILE key), never an ambient default.
 */
import type { SocialClient } from "../../platforms/social-port";

/** The player's latest login on an app: the platform it was on and the key its signatures need. */
export interface KeptPlayerKey {
  platform: string;
  /** "" when the login gave none. */
  openid: string;
  sessionKey: string;
}

export interface KeptKeys {
  read(userId: string, app: string): Promise<KeptPlayerKey | undefined>;
}

export interface AppTokens {
  /** Runs one business call with the app's cached access token, healing a rejected token once. */
  withPlatformToken<T>(platform: string, app: string, call: (accessToken: string) => Promise<T>): Promise<T>;
}

export interface SocialClients {
  /** The app's social client on that platform and the platform's id of the app; undefined where the platform has none. */
  find(platform: string, app: string): { client: SocialClient; appId: string } | undefined;
}

export interface PlayerOpenids {
  /**
   * The player's openid on this app: the latest login's, else the stored identity's. `null` when the
   * user does not exist; "" when they have no openid there (password-only, or known only by unionid).
   */
  openidOf(platform: string, app: string, userId: string): Promise<string | null>;
  /** The platform of the player's latest login on this app, while its session key is kept. */
  latestPlatform(userId: string, app: string): Promise<string | undefined>;
}
