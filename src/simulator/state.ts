/** What the simulator remembers between requests, and the shapes its route handlers share. */
import { ConsumedCodes } from "./codes";
import { TokenBook } from "./tokens";

export type Platform = "wechat" | "douyin";

export interface SimulatorApp {
  platform: Platform;
  appId: string;
  appSecret: string;
}

/** Stands for a POST body that was not a JSON object; handlers answer it as bad parameters. */
export const MALFORMED_BODY = Symbol("malformed body");

export interface SimRequest {
  query: URLSearchParams;
  body: Record<string, unknown> | typeof MALFORMED_BODY | undefined;
}

export interface SimReply {
  contentType: string;
  body: unknown;
}

export const JSON_TYPE = "application/json";

export type CredentialCheck = "ok" | "unknown_appid" | "wrong_secret";

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

  checkCredentials(platform: Platform, appId: string, secret: string): CredentialCheck {
    const app = this.apps.get(`${platform}\0${appId}`);
    if (!app) return "unknown_appid";
    return app.appSecret === secret ? "ok" : "wrong_secret";
  }

  /** Call only after checkCredentials said "ok", so books exist for configured apps only. */
  tokens(platform: Platform, appId: string): TokenBook {
    const key = `${platform}\0${appId}`;
    let book = this.tokenBooks.get(key);
    if (!book) this.tokenBooks.set(key, (book = new TokenBook(platform, this.now)));
    return book;
  }
}

/** Reads a string parameter; a missing, empty or non-string value counts as absent. */
export function param(source: URLSearchParams | Record<string, unknown>, name: string): string {
  const value = source instanceof URLSearchParams ? source.get(name) : source[name];
  return typeof value === "string" ? value : "";
}
