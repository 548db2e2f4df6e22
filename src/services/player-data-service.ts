import { AppError, invalidRequest } from "../core/errors";
import { NO_PLAYER_DATA, type PhoneNumber, type PlayerDataFeatures } from "../platforms/platform";
import { decryptOpenData, loginStateSignature, parseEncryptedInput, verifyRawDataSignature, watermarkAppId } from "../core/open-data-crypto";
import type { PlatformApp, PlatformApps } from "./platform-apps";
import type { PlatformTokenService } from "./platform-token-service";
import type { KeptSessionKey, SessionKeyCustody } from "./session-key-custody";

export type PlayerDataFeature = keyof PlayerDataFeatures;

/**
 * What a logged-in player's server can do with their platform session key, which never leaves
 * the server: decrypt `encryptedData`, verify a `rawData` signature, ask the platform whether the
 * key is still valid, and exchange a phone-number code. Each in the app of the player's session:
 * its session key, its app id in the watermark, its access token.
 */
export class PlayerDataService {
  constructor(
    private readonly apps: PlatformApps,
    private readonly custody: SessionKeyCustody,
    private readonly tokens: PlatformTokenService,
  ) {}

  /** Checked in the Contract's order: input shape, a kept key, the key fits, the data is ours. */
  async decrypt(userId: string, app: string, platform: string, encryptedData: string, iv: string): Promise<Record<string, unknown>> {
    const { appId } = this.platform(platform, app, "openData");
    const input = parseEncryptedInput(encryptedData, iv);
    if ("problems" in input) throw invalidRequest(input.problems);
    const kept = await this.keptKey(userId, app, platform);
    const data = decryptOpenData(input, kept.sessionKey);
    if (!data) throw new AppError("session_key_stale");
    if (watermarkAppId(data) !== appId) throw new AppError("watermark_mismatch");
    return data;
  }

  async verifySignature(userId: string, app: string, platform: string, rawData: string, signature: string): Promise<{ valid: boolean }> {
    this.platform(platform, app, "openData");
    const kept = await this.keptKey(userId, app, platform);
    return { valid: verifyRawDataSignature(rawData, kept.sessionKey, signature) };
  }

  async checkSessionKey(userId: string, app: string, platform: string): Promise<{ valid: boolean }> {
    const { client } = this.platform(platform, app, "sessionCheck");
    const kept = await this.keptKey(userId, app, platform);
    // The platform checks a key per openid; a login that gave none leaves nothing to check.
    if (!kept.openid || !client.checkSessionKey) throw new AppError("session_key_missing");
    const check = client.checkSessionKey.bind(client);
    const signature = loginStateSignature(kept.sessionKey);
    const valid = await this.tokens.withPlatformToken(platform, app, (accessToken) => check({ accessToken, openid: kept.openid, signature }));
    return { valid };
  }

  /** A phone-number code of `app`'s players (the code is bound to the app that showed the button). */
  async phoneNumber(app: string, platform: string, code: string): Promise<PhoneNumber> {
    const { client } = this.platform(platform, app, "phoneNumber");
    if (!client.getPhoneNumber) throw new AppError("route_not_found");
    const exchange = client.getPhoneNumber.bind(client);
    return this.tokens.withPlatformToken(platform, app, (accessToken) => exchange({ accessToken, code }));
  }

  private platform(name: string, app: string, feature: PlayerDataFeature): PlatformApp {
    const entry = this.apps.find(name, app);
    // The routes exist only where the feature does; this guards other callers of the service.
    if (!entry || !(entry.definition.playerData ?? NO_PLAYER_DATA)[feature]) {
      // A session of an app that is not on this (served) platform: say so rather than "no route".
      throw new AppError(entry || !this.apps.appsOf(name).length ? "route_not_found" : "unknown_app", { data: { platform: name } });
    }
    return entry;
  }

  private async keptKey(userId: string, app: string, platform: string): Promise<KeptSessionKey> {
    const kept = await this.custody.read(userId, app);
    if (!kept || kept.platform !== platform) throw new AppError("session_key_missing");
    return kept;
  }
}
