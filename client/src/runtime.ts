/**
 * The one port between the client and where it runs. A mini-game runtime (wx, tt, qq, ks) and
 * the browser each implement it; nothing else in the client touches a global.
 */
import type { ShowRewardedAd } from "./rewards";
import type { SubscribeGrants } from "./subscribe";

/** The codes a platform's login gives; the server exchanges them for the player's identity. */
export interface LoginCodes {
  code?: string;
  /** Douyin only: identifies the device, given whether or not the player is logged into the host app. */
  anonymousCode?: string;
}

export interface HttpRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  url: string;
  headers: Record<string, string>;
  /** Already serialised JSON, or none. */
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** Parsed JSON when the body was JSON, else the text. */
  data: unknown;
  /** The response's headers, names in lower case (absent where a runtime gives none). */
  headers?: Record<string, string>;
}

/** A network failure: no HTTP answer at all (offline, DNS, TLS, domain not allow-listed…). */
export class NetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NetworkError";
  }
}

/** A socket as every runtime can offer it: binary only ever as ArrayBuffer. */
export interface RuntimeSocket {
  send(data: string | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  onOpen(listener: () => void): void;
  onMessage(listener: (data: string | ArrayBuffer) => void): void;
  onClose(listener: (code: number, reason: string) => void): void;
  onError(listener: (message: string) => void): void;
}

/** Synchronous key-value storage, as `wx.getStorageSync` and `localStorage` are. */
export interface RuntimeStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

export interface Runtime {
  /** Which server login route this runtime's codes are for. */
  readonly platform: PlatformName;
  /**
   * The platform's app id of the running game, where the platform tells it (WeChat, QQ, Kuaishou:
   * `getAccountInfoSync().miniProgram.appId`; Douyin: `getEnvInfoSync().microapp.appId`): the login
   * names the game with it, so one server can serve a studio's several games. Undefined when unknown.
   */
  appId?(): string | undefined;
  /** Asks the platform for fresh login codes; the browser runtime has none and throws. */
  login(): Promise<LoginCodes>;
  request(request: HttpRequest): Promise<HttpResponse>;
  connectSocket(url: string, headers: Record<string, string>): RuntimeSocket;
  readonly storage: RuntimeStorage;
  /** The platform's subscribe prompt (subscribe.ts); absent where there is none (the browser). */
  requestSubscribe?(templateIds: string[]): Promise<SubscribeGrants>;
  /** The platform's payment UI (payment-ui.ts) with the platform's own options; absent where there is none. */
  requestPayment?(options: Record<string, unknown>): Promise<void>;
  /** The platform's rewarded video ad with server-side verification data (rewards.ts); absent where there is none. */
  showRewardedAd?: ShowRewardedAd;
  /** The game came back to the foreground (`wx.onShow`…; a page becoming visible): rooms reconnect now. */
  onShow?(listener: () => void): void;
  /** The game went to the background (`wx.onHide`…, also while a rewarded video ad plays). */
  onHide?(listener: () => void): void;
}

export type PlatformName = "wechat" | "douyin" | "qq" | "kuaishou";

/** How each platform's codes reach its login route (see the server's docs/platforms.md and /api-docs). */
export const PLATFORM_LOGIN: Record<PlatformName, { codeParam: string; anonymousParam?: string }> = {
  wechat: { codeParam: "jsCode" },
  douyin: { codeParam: "code", anonymousParam: "anonymous_code" },
  qq: { codeParam: "code" },
  kuaishou: { codeParam: "code" },
};

/** A fresh storage for runtimes without one (Node tests, private browsing). */
export function memoryStorage(): RuntimeStorage {
  const items: Record<string, string> = {};
  return {
    get: (key) => (Object.prototype.hasOwnProperty.call(items, key) ? items[key] : null),
    set: (key, value) => {
      items[key] = value;
    },
    remove: (key) => {
      delete items[key];
    },
  };
}

/** Parses a JSON body if it is one; runtimes differ in whether they parse for us. */
export function parseBody(data: unknown): unknown {
  if (typeof data !== "string") return data;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}
