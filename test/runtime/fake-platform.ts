/**
 * `wx` and `tt` as a mini-game sees them, typed against the platforms' published typings
 * (minigame-api-typings for WeChat mini-games; @douyin-microapp/typings for Douyin, which describes
 * its mini-programs: the mini-game runtime shares these network, storage and login APIs). Behind
 * them: real HTTP (fetch) and real WebSockets (ws) to the booted server, and simulator codes.
 *
 * Faithful where the client could go wrong:
 * - SocketTask.send fails on anything but a string or an ArrayBuffer (a Uint8Array is refused);
 * - onMessage gets `{ data }` with an ArrayBuffer of the game's own realm; onClose gets `{ code, reason }`
 *   (Douyin documents `code` as `string | number`, so the Douyin fake hands a string);
 * - getStorageSync answers "" for a missing key;
 * - Douyin's login gives `anonymousCode` always and `code` only while the player is logged into the host app.
 */
import WebSocket from "ws";
import type * as DouyinLogin from "@douyin-microapp/typings/api/login";
import type * as DouyinRequest from "@douyin-microapp/typings/api/request";
import type * as DouyinSocket from "@douyin-microapp/typings/api/connect-socket";
import type * as DouyinStorage from "@douyin-microapp/typings/api/storage";
import type * as DouyinEnvInfo from "@douyin-microapp/typings/api/get-env-info-sync";
import { AppLifecycle } from "./app-lifecycle";

/** The part of `wx` a mini-game client may use: these signatures are WeChat's own. */
export type WxApi = Pick<WechatMinigame.Wx, "login" | "request" | "connectSocket" | "getStorageSync" | "setStorageSync" | "removeStorageSync" | "onShow" | "onHide"> &
  Partial<Pick<WechatMinigame.Wx, "getAccountInfoSync">>;

/** The same for `tt`, from the Douyin typings. */
export interface TtApi {
  login: typeof DouyinLogin.login;
  request: typeof DouyinRequest.request;
  connectSocket: typeof DouyinSocket.connectSocket;
  getStorageSync: typeof DouyinStorage.getStorageSync;
  setStorageSync: typeof DouyinStorage.setStorageSync;
  removeStorageSync: typeof DouyinStorage.removeStorageSync;
  getEnvInfoSync?: typeof DouyinEnvInfo.getEnvInfoSync;
  /** Douyin's mini-game `tt.onShow` / `tt.onHide` (the typings describe mini-programs, which name them onAppShow / onAppHide). */
  onShow(listener: (result: { query?: object }) => void): void;
  onHide(listener: () => void): void;
}

/** ArrayBuffer and Uint8Array of the game's realm (the vm context), so data arrives as the game's own. */
export interface Realm {
  ArrayBuffer: ArrayBufferConstructor;
  Uint8Array: Uint8ArrayConstructor;
}

export interface LoggedRequest {
  method: string;
  path: string;
  status: number;
  code?: string;
}

/** What a test sees and controls of the device: storage survives restarts, the network can fail. */
export class FakeDevice {
  readonly storage = new Map<string, unknown>();
  readonly requests: LoggedRequest[] = [];
  /** Messages a SocketTask refused (the client must never send a Uint8Array). */
  readonly refusedSends: string[] = [];
  loginCalls = 0;
  private codeNumber = 0;
  private readonly sockets = new Set<WebSocket>();
  /** Connections a network switch left open on the server's side; closed at `dispose()`. */
  private readonly abandoned: WebSocket[] = [];
  private losePaths: string[] = [];
  /** Foreground and background: hiding freezes the game and cuts its sockets after a few seconds. */
  readonly lifecycle = new AppLifecycle(() => this.cutSockets());
  /** No network at all: requests fail and sockets close before opening. */
  offline = false;
  /**
   * The next socket dies at its first message from the server (a room's join answer): "before" it
   * reaches the game, or "after" (the game's confirmation of the join then never leaves the phone).
   */
  cutNextSocketAtFirstMessage: "before" | "after" | undefined;

  constructor(
    /** The simulator player: codes are `<player>.<n>`, so every code of a device is one player. */
    readonly player: string,
    /** Douyin: whether the player is logged into the host app (else only the anonymous code). */
    public hostLoggedIn = true,
    readonly deviceId = `${player}dev`,
    /** The platform app id the game's runtime reports (getAccountInfoSync / getEnvInfoSync); none: an older base library without the call. */
    readonly appId?: string,
  ) {}

  nextCode(): string {
    return `${this.player}.${++this.codeNumber}`;
  }
  nextAnonymousCode(): string {
    return `${this.deviceId}.${++this.codeNumber}`;
  }

  /** Every open socket dies as on a network switch: the game sees close code 1006. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.terminate();
  }

  /** The runtime cuts the hidden game's sockets (WeChat iOS): the game sees 1000 "interrupted" when it runs again. */
  private cutSockets(): void {
    for (const socket of this.sockets) {
      (socket as WebSocket & { closeSeenAs?: [number, string] }).closeSeenAs = [1000, "interrupted"];
      socket.terminate();
    }
  }

  /**
   * Wi-Fi hands over to 4G: the phone's old connections just stop, nothing reaches the server (it
   * keeps them open until its pings go unanswered), and the game sees its sockets close with 1006.
   */
  switchNetwork(): void {
    for (const socket of [...this.sockets]) {
      const raw = (socket as unknown as { _socket?: { pause(): void; removeAllListeners(event: string): void } })._socket;
      raw?.removeAllListeners("data");
      raw?.pause();
      this.sockets.delete(socket);
      this.abandoned.push(socket);
      socket.emit("close", 1006, Buffer.from(""));
    }
  }

  /** Closes what a network switch left behind. */
  dispose(): void {
    for (const socket of this.abandoned.splice(0)) socket.terminate();
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  /** The next request to this path reaches the server, but its answer is lost (the game sees `fail`). */
  loseNextAnswer(path: string): void {
    this.losePaths.push(path);
  }

  count(path: string): number {
    return this.requests.filter((r) => r.path === path).length;
  }

  /** One HTTP exchange over the real network; `answer` gets the status and body text, or an error. */
  exchange(url: string, method: string, header: Record<string, string> | undefined, data: unknown, answer: (result: { status: number; text: string; headers: Record<string, string> } | Error) => void): void {
    const path = new URL(url).pathname;
    const reply = answer;
    answer = (result) => this.lifecycle.deliver(() => reply(result));
    if (this.offline) {
      setTimeout(() => answer(new Error("request:fail net::ERR_INTERNET_DISCONNECTED")), 5);
      return;
    }
    // Both platforms send an object as JSON (the content type says so), a string as it is.
    const body = data === undefined || method === "GET" || method === "HEAD" ? undefined : typeof data === "string" ? data : JSON.stringify(data);
    fetch(url, { method, headers: header, body })
      .then(async (res) => {
        const text = await res.text();
        let code: string | undefined;
        try {
          code = JSON.parse(text)?.data?.code ?? JSON.parse(text)?.error;
        } catch {
          // not JSON
        }
        this.requests.push({ method, path, status: res.status, code });
        const lost = this.losePaths.indexOf(path);
        if (lost >= 0) {
          this.losePaths.splice(lost, 1);
          answer(new Error("request:fail timeout"));
        } else answer({ status: res.status, text, headers: Object.fromEntries(res.headers) });
      })
      .catch((err: Error) => answer(new Error(`request:fail ${err.message}`)));
  }

  /** A real WebSocket wrapped as a SocketTask. */
  openSocket(url: string, header: Record<string, string> | undefined, realm: Realm, closeCodeAsString: boolean) {
    // Offline, the socket never reaches anything: an address nothing listens on (port 9 refuses at once).
    const ws = new WebSocket(this.offline ? "ws://127.0.0.1:9/" : url, { headers: header });
    ws.binaryType = "arraybuffer";
    this.sockets.add(ws);
    const cut = this.cutNextSocketAtFirstMessage;
    this.cutNextSocketAtFirstMessage = undefined;
    let sendsLost = false;
    const listeners = { open: [] as Array<(r: any) => void>, message: [] as Array<(r: any) => void>, close: [] as Array<(r: any) => void>, error: [] as Array<(r: any) => void> };
    const deliver = (list: Array<(r: any) => void>, result: unknown) => this.lifecycle.deliver(() => list.forEach((l) => l(result)));
    ws.on("open", () => deliver(listeners.open, { header: {}, profile: {} }));
    ws.on("message", (data: ArrayBuffer | Buffer, isBinary: boolean) => {
      const bytes = new Uint8Array(data instanceof ArrayBuffer ? data : data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
      let delivered: string | ArrayBuffer;
      if (isBinary) {
        delivered = new realm.ArrayBuffer(bytes.byteLength);
        new realm.Uint8Array(delivered).set(bytes);
      } else delivered = Buffer.from(bytes).toString("utf8");
      if (cut && !sendsLost) {
        sendsLost = true;
        if (cut === "after") deliver(listeners.message, { data: delivered });
        ws.terminate();
        return;
      }
      deliver(listeners.message, { data: delivered });
    });
    ws.on("close", (wsCode: number, wsReason: Buffer) => {
      this.sockets.delete(ws);
      const [code, reason] = (ws as WebSocket & { closeSeenAs?: [number, string] }).closeSeenAs ?? [wsCode, wsReason.toString()];
      deliver(listeners.close, { code: closeCodeAsString ? String(code) : code, reason, errMsg: "closeSocket:ok" });
    });
    ws.on("error", (err: Error) => deliver(listeners.error, { errMsg: err.message }));
    const refused = this.refusedSends;
    return {
      send(option: { data: unknown; success?: (r: { errMsg: string }) => void; fail?: (r: { errMsg: string }) => void }) {
        const { data } = option;
        const isArrayBuffer = Object.prototype.toString.call(data) === "[object ArrayBuffer]";
        if (typeof data !== "string" && !isArrayBuffer) {
          refused.push(Object.prototype.toString.call(data));
          option.fail?.({ errMsg: "sendSocketMessage:fail parameter error: data should be String or ArrayBuffer" });
          return;
        }
        if (!sendsLost) ws.send(typeof data === "string" ? data : Buffer.from(data as ArrayBuffer));
        option.success?.({ errMsg: "sendSocketMessage:ok" });
      },
      close(option: { code?: number; reason?: string }) {
        ws.close(option.code ?? 1000, option.reason);
      },
      onOpen: (l: (r: any) => void) => void listeners.open.push(l),
      onMessage: (l: (r: any) => void) => void listeners.message.push(l),
      onClose: (l: (r: any) => void) => void listeners.close.push(l),
      onError: (l: (r: any) => void) => void listeners.error.push(l),
    };
  }

  storageGet(key: string): unknown {
    return this.storage.has(key) ? this.storage.get(key) : "";
  }
}

/** `wx` over a FakeDevice. */
export function fakeWx(device: FakeDevice, realm: Realm): WxApi {
  const login = ((option: WechatMinigame.LoginOption = {}) => {
    device.loginCalls++;
    setTimeout(() => option.success?.({ code: device.nextCode(), errMsg: "login:ok" }), 1);
  }) as WxApi["login"];

  const request = ((option: WechatMinigame.RequestOption) => {
    device.exchange(option.url, option.method ?? "GET", option.header as Record<string, string>, option.data, (result) => {
      if (result instanceof Error) return option.fail?.({ errMsg: result.message, errno: 5, exception: { retryCount: 0, reasons: [] }, useHttpDNS: false } as unknown as WechatMinigame.RequestFailCallbackErr);
      // WeChat parses only with dataType "json" (its default); any other value leaves the text.
      const data = (option.dataType ?? "json") === "json" ? tryJson(result.text) : result.text;
      option.success?.({ statusCode: result.status, data, header: result.headers, cookies: [], errMsg: "request:ok" } as unknown as WechatMinigame.RequestSuccessCallbackResult);
    });
    return { abort() {}, onHeadersReceived() {}, offHeadersReceived() {}, onChunkReceived() {}, offChunkReceived() {} } as unknown as WechatMinigame.RequestTask;
  }) as WxApi["request"];

  const connectSocket: WxApi["connectSocket"] = (option) =>
    device.openSocket(option.url, option.header as Record<string, string>, realm, false) as unknown as WechatMinigame.SocketTask;

  return {
    login,
    request,
    connectSocket,
    getStorageSync: ((key: string) => device.storageGet(key)) as WxApi["getStorageSync"],
    setStorageSync: ((key: string, data: unknown) => void device.storage.set(key, data)) as WxApi["setStorageSync"],
    removeStorageSync: (key) => void device.storage.delete(key),
    onShow: ((listener: () => void) => device.lifecycle.onShow(() => listener())) as WxApi["onShow"],
    onHide: ((listener: () => void) => device.lifecycle.onHide(() => listener())) as WxApi["onHide"],
    ...(device.appId === undefined
      ? {}
      : { getAccountInfoSync: () => ({ miniProgram: { appId: device.appId!, envVersion: "release", version: "1.0.0" }, plugin: { appId: "", version: "" } }) as WechatMinigame.AccountInfo }),
  };
}

/** `tt` over a FakeDevice. */
export function fakeTt(device: FakeDevice, realm: Realm): TtApi {
  const login: TtApi["login"] = (options) => {
    device.loginCalls++;
    const isLogin = device.hostLoggedIn || options.force !== false;
    setTimeout(() => options.success?.({ code: isLogin ? device.nextCode() : "", anonymousCode: device.nextAnonymousCode(), isLogin, errMsg: "login:ok" }), 1);
  };
  const request: TtApi["request"] = (options) => {
    device.exchange(options.url, options.method ?? "GET", options.header as Record<string, string>, options.data, (result) => {
      if (result instanceof Error) return options.fail?.({ errMsg: result.message });
      const data = (options.dataType ?? "json") === "json" ? tryJson(result.text) : result.text;
      options.success?.({ statusCode: result.status, data: data as object, header: result.headers, errMsg: "request:ok" });
    });
    return { abort() {} };
  };
  const connectSocket: TtApi["connectSocket"] = (options) => device.openSocket(options.url, options.header, realm, true) as unknown as ReturnType<TtApi["connectSocket"]>;
  return {
    login,
    request,
    connectSocket,
    getStorageSync: (key) => device.storageGet(key),
    setStorageSync: (key, data) => void device.storage.set(key, data),
    removeStorageSync: (key) => void device.storage.delete(key),
    onShow: (listener) => device.lifecycle.onShow(() => listener({ query: {} })),
    onHide: (listener) => device.lifecycle.onHide(() => listener()),
    ...(device.appId === undefined ? {} : {
          getEnvInfoSync: () => ({
            microapp: { mpVersion: "1.0.0", envType: "production", appId: device.appId! },
            plugin: {},
            common: { USER_DATA_PATH: "ttfile://user", location: undefined, launchFrom: undefined, schema: undefined },
          }),
        }),
  };
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
