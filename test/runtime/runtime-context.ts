/**
 * A `node:vm` context with only what a mini-game runtime has: the ECMAScript built-ins, `console`,
 * timers, and the platform object (`wx` / `tt`; WeChat also has `GameGlobal`). No `WebSocket`,
 * `XMLHttpRequest`, `fetch`, `URL`, `Headers`, `TextEncoder`, `Buffer`, `process` or `require`.
 * The drop-in file is loaded as a mini-game loads a file: a CommonJS module.
 */
import fs from "node:fs";
import vm from "node:vm";
import type * as ClientLibrary from "../../client/src/index";
import { FakeDevice, fakeTt, fakeWx, type Realm } from "./fake-platform";

export type Library = typeof ClientLibrary;
export type MiniGamePlatform = "wechat" | "douyin" | "qq" | "kuaishou";

/**
 * The platform object's global name. QQ's `qq` and Kuaishou's `ks` have WeChat's shapes for the
 * APIs the client uses (no typings for them are published on npm), so their fakes are WeChat's.
 */
export const PLATFORM_GLOBAL: Record<MiniGamePlatform, string> = { wechat: "wx", douyin: "tt", qq: "qq", kuaishou: "ks" };

/** Globals a browser or Node has and a mini-game runtime does not. */
export const ABSENT_GLOBALS = ["WebSocket", "XMLHttpRequest", "fetch", "URL", "URLSearchParams", "Headers", "TextEncoder", "TextDecoder", "Buffer", "process", "require", "window", "document", "localStorage", "atob"];

export interface MiniGameContext {
  context: vm.Context;
  library: Library;
  /** Runs game code in the context (e.g. to check what a global is there). */
  run(code: string): unknown;
}

export function createMiniGameContext(platform: MiniGamePlatform, device: FakeDevice, dropInFile: string): MiniGameContext {
  // The game's timers stop while it is in the background (app-lifecycle.ts).
  const frozen = <A extends unknown[]>(callback: (...args: A) => void) => (...args: A) => device.lifecycle.deliver(() => callback(...args));
  const timers = {
    setTimeout: (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => setTimeout(frozen(callback), ms, ...args),
    setInterval: (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => setInterval(frozen(callback), ms, ...args),
    clearTimeout,
    clearInterval,
  };
  const context = vm.createContext({ console, ...timers }, { name: `${platform} mini-game` });
  const run = (code: string) => vm.runInContext(code, context);
  const realm = { ArrayBuffer: run("ArrayBuffer"), Uint8Array: run("Uint8Array") } as Realm;
  context[PLATFORM_GLOBAL[platform]] = platform === "douyin" ? fakeTt(device, realm) : fakeWx(device, realm);
  if (platform === "wechat") context.GameGlobal = run("this");
  const source = fs.readFileSync(dropInFile, "utf8");
  const factory = vm.runInContext(`(function (module, exports) {${source}\n})`, context, { filename: dropInFile }) as (m: unknown, e: unknown) => void;
  const module = run("({ exports: {} })") as { exports: Library };
  factory(module, module.exports);
  return { context, library: module.exports, run };
}
