/**
 * The social part of the platform port (platform-apis-3.md §4, §5): what the server writes for a
 * player's friend ranking, and the subscribe messages it sends. A platform module that documents these
 * APIs supplies a `SocialClient`; every call takes the app's access token and, where the platform
 * signs on the player's behalf, the player's kept session key, explicitly: nothing here picks an app.
 */

/** One entry of a player's hosted storage (the friend ranking's data source). */
export interface StorageEntry {
  key: string;
  value: string;
}

/** One entry of WeChat's interactive data: a console-configured key ("1"…"50") and an integer. */
export interface InteractiveEntry {
  key: string;
  value: number;
}

/** A call made on a player's behalf: the exact body is signed with HMAC-SHA256 under their session key. */
export interface PlayerSignedCall {
  accessToken: string;
  openid: string;
  sessionKey: string;
}

/** Which environment of the mini-game a subscribe message opens (WeChat `miniprogram_state`). */
export const MINIPROGRAM_STATES = ["formal", "trial", "developer"] as const;
export type MiniprogramState = (typeof MINIPROGRAM_STATES)[number];

export interface SubscribeMessage {
  templateId: string;
  /** The page the message opens, with its query; absent opens the game's start page. */
  page?: string;
  /** Field name → text (WeChat wraps each as `{ "value": … }`). */
  data: Record<string, string>;
  state: MiniprogramState;
  lang: string;
}

/**
 * A platform's documented storage limits, checked before any call. Sizes are UTF-8 bytes.
 * `rankingWrapper` names the value format friend rankings read (`{"wxgame": {"score", "update_time"}}`):
 * a value that is a JSON object with that key must have the documented shape.
 */
export interface StorageLimits {
  maxKeys: number;
  maxKeyBytes: number;
  maxEntryBytes: number;
  rankingWrapper?: string;
}

export interface InteractiveDataLimits {
  /** The keys the platform documents (WeChat: "1"…"50"). */
  keys: readonly string[];
  minValue: number;
  maxValue: number;
}

/** The app id travels explicitly: Douyin's notify body names the app. */
export interface SubscribeCall {
  accessToken: string;
  appId: string;
  openid: string;
  message: SubscribeMessage;
}

export interface SocialClient {
  readonly platform: string;
  readonly storageLimits: StorageLimits;
  /** Writes (adds or replaces) entries of the player's storage. */
  setUserStorage(call: PlayerSignedCall & { kvList: StorageEntry[] }): Promise<void>;
  removeUserStorage(call: PlayerSignedCall & { keys: string[] }): Promise<void>;
  readonly interactiveDataLimits?: InteractiveDataLimits;
  setUserInteractiveData?(call: PlayerSignedCall & { kvList: InteractiveEntry[] }): Promise<void>;
  /** Sends one subscribe message; uses up one of the player's grants of that template. */
  sendSubscribeMessage?(call: SubscribeCall): Promise<void>;
}
