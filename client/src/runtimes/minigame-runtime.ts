import { openPaymentUi, type PaymentUiApi } from "../payment-ui";
import { showWithRuntime, type RewardedAdApi } from "../rewards";
import { promptSubscribe, type SubscribePromptApi } from "../subscribe";
import { NetworkError, parseBody, type HttpRequest, type HttpResponse, type LoginCodes, type PlatformName, type Runtime, type RuntimeSocket } from "../runtime";

/**
 * The part of `wx` / `tt` / `qq` / `ks` the client uses. All four share these shapes
 * (callback objects with `success` / `fail`); the tests type their fakes against the published
 * WeChat and Douyin typings and check they fit this.
 */
export interface MiniGameApi extends SubscribePromptApi, PaymentUiApi, RewardedAdApi {
  login(options: {
    force?: boolean;
    success?(result: { code?: string; anonymousCode?: string; isLogin?: boolean }): void;
    fail?(error: { errMsg?: string }): void;
  }): unknown;
  request(options: {
    url: string;
    /** WeChat's wx.request has no PATCH; Douyin's has. */
    method?: "GET" | "POST" | "PUT" | "DELETE";
    header?: Record<string, string>;
    /** Douyin's request takes an object or an ArrayBuffer, not a string: with a JSON content type both serialise objects. */
    data?: object;
    dataType?: string;
    responseType?: "text";
    success?(result: { statusCode: number; data: unknown; header?: Record<string, string> }): void;
    fail?(error: { errMsg?: string }): void;
  }): unknown;
  connectSocket(options: { url: string; header?: Record<string, string>; fail?(error: { errMsg?: string }): void }): MiniGameSocketTask;
  getStorageSync(key: string): unknown;
  setStorageSync(key: string, value: string): void;
  removeStorageSync(key: string): void;
  /** WeChat (and QQ, Kuaishou, with WeChat's shape): the running game's account, with its app id. */
  getAccountInfoSync?(): { miniProgram?: { appId?: string } };
  /** Douyin: the running game's environment, with its app id. */
  getEnvInfoSync?(): { microapp?: { appId?: string } };
  /** The game returns to the foreground / goes to the background (all four platforms). */
  onShow?(listener: (result?: unknown) => void): void;
  onHide?(listener: (result?: unknown) => void): void;
}

export interface MiniGameSocketTask {
  send(options: { data: string | ArrayBuffer; fail?(error: { errMsg?: string }): void }): void;
  close(options: { code?: number; reason?: string }): void;
  onOpen(listener: (result: unknown) => void): void;
  onMessage(listener: (result: { data: string | ArrayBuffer }) => void): void;
  /** Douyin documents `code` as `string | number`. */
  onClose(listener: (result: { code?: number | string; reason?: string }) => void): void;
  onError(listener: (result: { errMsg?: string }) => void): void;
}

export interface MiniGameRuntimeOptions {
  /**
   * Douyin: `tt.login({ force })`. With `false` (our default) a player who is not logged into the
   * host app is not shown its login box, and plays with the anonymous code.
   */
  forceLogin?: boolean;
}

/** A Runtime over a mini-game platform's API object (`wx`, `tt`, `qq`, `ks`). */
export function miniGameRuntime(api: MiniGameApi, platform: PlatformName, options: MiniGameRuntimeOptions = {}): Runtime {
  return {
    platform,
    appId: () => runningAppId(api),
    login: () =>
      new Promise<LoginCodes>((resolve, reject) => {
        api.login({
          force: platform === "douyin" ? options.forceLogin ?? false : undefined,
          success: (result) => {
            // Douyin: `code` is only meaningful while the player is logged into the host app.
            const code = result.code && result.isLogin !== false ? result.code : undefined;
            const anonymousCode = result.anonymousCode || undefined;
            if (!code && !anonymousCode) reject(new Error(`${platform} login gave no code`));
            else resolve({ code, anonymousCode });
          },
          fail: (error) => reject(new Error(`${platform} login failed: ${error?.errMsg ?? "unknown"}`)),
        });
      }),
    request: (request) =>
      new Promise<HttpResponse>((resolve, reject) => {
        // wx.request documents no PATCH (QQ and Kuaishou follow WeChat's list, unconfirmed); Douyin's has it.
        if (request.method === "PATCH" && platform !== "douyin") {
          reject(new Error(`${platform} mini-games cannot send PATCH requests`));
          return;
        }
        api.request({
          url: request.url,
          method: request.method as "GET",
          header: request.headers,
          data: request.body === undefined ? undefined : (JSON.parse(request.body) as object),
          // Anything but "json" leaves the body as text; we parse it ourselves, the same way everywhere.
          dataType: "text",
          responseType: "text",
          success: (result) => resolve({ status: result.statusCode, data: parseBody(result.data), headers: lowerCaseNames(result.header) }),
          fail: (error) => reject(new NetworkError(error?.errMsg ?? "request failed")),
        });
      }),
    connectSocket: (url, headers) => wrapSocketTask(api, url, headers),
    requestSubscribe: (templateIds) => promptSubscribe(api, platform, templateIds),
    requestPayment: (options) => openPaymentUi(api, platform, options),
    showRewardedAd: api.createRewardedVideoAd ? showWithRuntime(api) : undefined,
    onShow: (listener) => api.onShow?.(() => listener()),
    onHide: (listener) => api.onHide?.(() => listener()),
    storage: {
      get: (key) => {
        const value = api.getStorageSync(key);
        return typeof value === "string" && value !== "" ? value : null;
      },
      set: (key, value) => api.setStorageSync(key, value),
      remove: (key) => api.removeStorageSync(key),
    },
  };
}

/** The game's app id as its platform reports it; an older base library without the call, or a throw, is "unknown". */
function runningAppId(api: MiniGameApi): string | undefined {
  try {
    const id = api.getAccountInfoSync?.()?.miniProgram?.appId ?? api.getEnvInfoSync?.()?.microapp?.appId;
    return typeof id === "string" && id !== "" ? id : undefined;
  } catch {
    return undefined;
  }
}

function wrapSocketTask(api: MiniGameApi, url: string, headers: Record<string, string>): RuntimeSocket {
  let failed: ((message: string) => void) | undefined;
  const task = api.connectSocket({ url, header: headers, fail: (error) => failed?.(error?.errMsg ?? "connectSocket failed") });
  return {
    send: (data) => task.send({ data, fail: (error) => failed?.(error?.errMsg ?? "send failed") }),
    // The runtimes accept only 1000 or 3000–4999; without a code they close normally.
    close: (code, reason) => task.close(code === undefined ? {} : { code, reason }),
    onOpen: (listener) => task.onOpen(() => listener()),
    onMessage: (listener) => task.onMessage((result) => listener(result.data)),
    onClose: (listener) => task.onClose((result) => listener(Number(result?.code ?? 1006), result?.reason ?? "")),
    onError: (listener) => {
      failed = listener;
      task.onError((result) => listener(result?.errMsg ?? "socket error"));
    },
  };
}

/** Header names as the platforms spell them (WeChat keeps the server's case): lower-cased. */
function lowerCaseNames(header: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(header ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
}
