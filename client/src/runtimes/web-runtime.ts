import { memoryStorage, NetworkError, parseBody, type LoginCodes, type PlatformName, type Runtime, type RuntimeSocket, type RuntimeStorage } from "../runtime";

/** The browser (and Node ≥ 22) globals this runtime uses, looked up when it is created, never patched. */
interface WebGlobals {
  fetch?: (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<{ status: number; text(): Promise<string>; headers?: { forEach(callback: (value: string, name: string) => void): void } }>;
  WebSocket?: WebSocketConstructor;
  localStorage?: { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void };
  document?: { visibilityState?: string; addEventListener?(type: string, listener: () => void): void };
}

/** Handlers take `any` events so both the browser's WebSocket and Node's `ws` fit. */
interface WebSocketLike {
  binaryType: string;
  onopen: ((event: any) => void) | null;
  onmessage: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
  send(data: string | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
}
type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface WebRuntimeOptions {
  /** Which login route codes are for; a browser has no platform of its own. */
  platform: PlatformName;
  /** The platform app id of the game this page plays (a studio's several games on one server); none: the server's default app. */
  appId?: string;
  /** Supplies codes when `login()` is called without them (a web game's own login flow). */
  login?: () => Promise<LoginCodes>;
  storage?: RuntimeStorage;
  WebSocket?: WebSocketConstructor;
}

/** A Runtime over `fetch`, `WebSocket` and `localStorage`: the playground and web builds. */
export function webRuntime(options: WebRuntimeOptions): Runtime {
  const globals = globalThis as unknown as WebGlobals;
  const WebSocketImpl = options.WebSocket ?? globals.WebSocket;
  return {
    platform: options.platform,
    appId: () => options.appId,
    login: () => (options.login ? options.login() : Promise.reject(new Error("the web runtime has no platform login: pass codes to login()"))),
    request: async (request) => {
      if (!globals.fetch) throw new NetworkError("fetch is not available");
      let response;
      try {
        response = await globals.fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
      } catch (err) {
        throw new NetworkError(err instanceof Error ? err.message : String(err));
      }
      const headers: Record<string, string> = {};
      response.headers?.forEach((value, name) => (headers[name.toLowerCase()] = value));
      return { status: response.status, data: parseBody(await response.text()), headers };
    },
    connectSocket: (url) => {
      if (!WebSocketImpl) throw new NetworkError("WebSocket is not available: pass one in webRuntime({ WebSocket })");
      return wrapWebSocket(new WebSocketImpl(url));
    },
    storage: options.storage ?? localStorageOrMemory(globals),
    // A page that becomes visible again: rooms waiting to reconnect try at once.
    onShow: (listener) => onVisibility(globals, "visible", listener),
    onHide: (listener) => onVisibility(globals, "hidden", listener),
  };
}

function onVisibility(globals: WebGlobals, state: string, listener: () => void): void {
  const doc = globals.document;
  doc?.addEventListener?.("visibilitychange", () => {
    if (doc.visibilityState === state) listener();
  });
}

function wrapWebSocket(ws: WebSocketLike): RuntimeSocket {
  ws.binaryType = "arraybuffer";
  return {
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
    onOpen: (listener) => {
      ws.onopen = () => listener();
    },
    onMessage: (listener) => {
      ws.onmessage = (event) => listener(event.data as string | ArrayBuffer);
    },
    onClose: (listener) => {
      ws.onclose = (event) => listener(event.code, event.reason);
    },
    onError: (listener) => {
      ws.onerror = () => listener("socket error");
    },
  };
}

function localStorageOrMemory(globals: WebGlobals): RuntimeStorage {
  try {
    const local = globals.localStorage;
    if (local) {
      return { get: (key) => local.getItem(key), set: (key, value) => local.setItem(key, value), remove: (key) => local.removeItem(key) };
    }
  } catch {
    // Access can throw (sandboxed iframes, disabled storage): fall back to memory.
  }
  return memoryStorage();
}
