/** Operators for console tests, created the way `operator add` does, and a cookie-keeping console client. */
import { openOperatorStore } from "../../src/server/operator-wiring";
import { createLogger } from "../../src/logging/logger";
import type { AppConfig } from "../../src/config/config";
import type { OperatorRole } from "../../src/core/ports/operator-store";
import { OperatorAccounts } from "../../src/services/console/operator-accounts";
import { totpAt } from "../../src/services/console/totp";

export const OPERATOR_PASSWORD = "a-long-operator-password-42";

export interface TestOperator {
  name: string;
  password: string;
  /** The TOTP seed, when one was set up (read from the otpauth link the CLI prints). */
  totpSecret?: string;
  totp(): string;
}

/** Adds an operator on the server's database; `ready` also does the first sign-in's password change. */
export async function addOperator(config: Pick<AppConfig, "store" | "consoleSeedKeys">, name: string, role: OperatorRole, options: { totp?: boolean; production?: boolean } = {}): Promise<TestOperator & { initialPassword: string }> {
  // Beside a server in this process, its SQLite connection (a second one could wait on it forever).
  const logger = createLogger({ level: "silent" });
  const store = await openOperatorStore(config, logger, { shareSqlite: true }).catch(() => openOperatorStore(config, logger));
  try {
    const created = await new OperatorAccounts(store, { production: options.production ?? false }).add(name, role, options);
    const totpSecret = created.totpUri ? new URL(created.totpUri).searchParams.get("secret")! : undefined;
    return { name, password: created.initialPassword, initialPassword: created.initialPassword, totpSecret, totp: () => (totpSecret ? totpAt(totpSecret, Date.now()) : "") };
  } finally {
    await store.close();
  }
}

export interface ConsoleResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** A browser-like client: keeps the session cookie and sends the CSRF token on changes. */
export class ConsoleClient {
  cookie = "";
  csrf = "";
  constructor(private readonly baseUrl: string) {}

  async call(method: string, path: string, body?: unknown, options: { csrf?: boolean; headers?: Record<string, string> } = {}): Promise<ConsoleResponse> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.cookie) headers.cookie = this.cookie;
    if (method !== "GET" && options.csrf !== false && this.csrf) headers["x-csrf-token"] = this.csrf;
    const res = await fetch(`${this.baseUrl}/console/api${path}`, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
    const setCookie = res.headers.get("set-cookie");
    if (setCookie) this.cookie = setCookie.split(";")[0];
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // CSV or text: the test decides
    }
    const result = { status: res.status, body: parsed as any, headers: res.headers };
    if (result.body?.data?.csrfToken) this.csrf = result.body.data.csrfToken;
    return result;
  }

  /** Signs in; with `newPassword`, also replaces the one-time password. */
  async signIn(op: TestOperator, newPassword?: string): Promise<ConsoleResponse> {
    const res = await this.call("POST", "/session", { name: op.name, password: op.password, ...(op.totpSecret ? { totp: op.totp() } : {}) });
    if (res.status === 200 && newPassword) {
      const changed = await this.call("POST", "/password", { currentPassword: op.password, newPassword });
      if (changed.status !== 200) throw new Error(`password change: ${JSON.stringify(changed.body)}`);
      op.password = newPassword;
      return changed;
    }
    return res;
  }
}
