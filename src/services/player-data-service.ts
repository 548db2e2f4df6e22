import { AppError, invalidRequest } from "../core/errors";
import { NO_PLAYER_DATA, type PhoneNumber, type PlatformClient, type PlatformDefinition, type PlayerDataFeatures } from "../platforms/platform";
import { decryptOpenData, loginStateSignature, parseEncryptedInput, verifyRawDataSignature, watermarkAppId } from "../core/open-data-crypto";
import type { PlatformTokenService } from "./platform-token-service";
import type { KeptSessionKey, SessionKeyCustody } from "./session-key-custody";

export interface PlayerDataPlatform {
  definition: PlatformDefinition;
  client: PlatformClient;
  /** The configured app id: decrypted data must carry it in `watermark.appid`. */
  appId: string;
}

export type PlayerDataFeature = keyof PlayerDataFeatures;

/**
 * What a logged-in player's server can do with their platform session key, which never leaves
 * the server: decrypt `encryptedData`, verify a `rawData` signature, ask the platform whether the
 * key is still valid, and exchange a phone-number code.
 */
export class PlayerDataService {
  constructor(
    private readonly platforms: ReadonlyMap<string, PlayerDataPlatform>,
    private readonly custody: SessionKeyCustody,
    private readonly tokens: PlatformTokenService,
  ) {}

  /** Checked in the Contract's order: input shape, a kept key, the key fits, the data is ours. */
  async decrypt(userId: string, platform: string, encryptedData: string, iv: string): Promise<Record<string, unknown>> {
    const { appId } = this.platform(platform, "openData");
    const input = parseEncryptedInput(encryptedData, iv);
    if ("problems" in input) throw invalidRequest(input.problems);
    const kept = await this.keptKey(userId, platform);
    const data = decryptOpenData(input, kept.sessionKey);
    if (!data) throw new AppError("session_key_stale");
    if (watermarkAppId(data) !== appId) throw new AppError("watermark_mismatch");
    return data;
  }

  async verifySignature(userId: string, platform: string, rawData: string, signature: string): Promise<{ valid: boolean }> {
    this.platform(platform, "openData");
    const kept = await this.keptKey(userId, platform);
    return { valid: verifyRawDataSignature(rawData, kept.sessionKey, signature) };
  }

  async checkSessionKey(userId: string, platform: string): Promise<{ valid: boolean }> {
    const { client } = this.platform(platform, "sessionCheck");
    const kept = await this.keptKey(userId, platform);
    // The platform checks a key per openid; a login that gave none leaves nothing to check.
    if (!kept.openid || !client.checkSessionKey) throw new AppError("session_key_missing");
    const check = client.checkSessionKey.bind(client);
    const signature = loginStateSignature(kept.sessionKey);
    const valid = await this.tokens.withPlatformToken(platform, (accessToken) => check({ accessToken, openid: kept.openid, signature }));
    return { valid };
  }

  async phoneNumber(platform: string, code: string): Promise<PhoneNumber> {
    const { client } = this.platform(platform, "phoneNumber");
    if (!client.getPhoneNumber) throw new AppError("route_not_found");
    const exchange = client.getPhoneNumber.bind(client);
    return this.tokens.withPlatformToken(platform, (accessToken) => exchange({ accessToken, code }));
  }

  private platform(name: string, feature: PlayerDataFeature): PlayerDataPlatform {
    const entry = this.platforms.get(name);
    // The routes exist only where the feature does; this guards other callers of the service.
    if (!entry || !(entry.definition.playerData ?? NO_PLAYER_DATA)[feature]) throw new AppError("route_not_found");
    return entry;
  }

  private async keptKey(userId: string, platform: string): Promise<KeptSessionKey> {
    const kept = await this.custody.read(userId);
    if (!kept || kept.platform !== platform) throw new AppError("session_key_missing");
    return kept;
  }
}
