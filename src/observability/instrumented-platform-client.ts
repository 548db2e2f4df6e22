import { AppError } from "../core/errors";
import type { PlatformClient } from "../platforms/platform";
import type { Metrics } from "./metrics";

/** Times every platform call of one app (our key) and records its outcome (ok or our error code). */
export function instrumentPlatformClient(client: PlatformClient, app: string, metrics: Metrics): PlatformClient {
  const timed = async <T>(call: string, run: () => Promise<T>): Promise<T> => {
    const started = process.hrtime.bigint();
    let outcome = "ok";
    try {
      return await run();
    } catch (err) {
      outcome = err instanceof AppError ? err.code : "error";
      throw err;
    } finally {
      metrics.platformCall(client.platform, app, call, outcome, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
  const checkSessionKey = client.checkSessionKey?.bind(client);
  const getPhoneNumber = client.getPhoneNumber?.bind(client);
  const checkText = client.checkText?.bind(client);
  return {
    platform: client.platform,
    tokenApi: client.tokenApi,
    exchangeCode: (codes) => timed("code2session", () => client.exchangeCode(codes)),
    fetchAccessToken: (options) => timed("access_token", () => client.fetchAccessToken(options)),
    ...(checkSessionKey ? { checkSessionKey: (check) => timed("check_session_key", () => checkSessionKey(check)) } : {}),
    ...(getPhoneNumber ? { getPhoneNumber: (call) => timed("phone_number", () => getPhoneNumber(call)) } : {}),
    ...(checkText ? { checkText: (check) => timed("text_check", () => checkText(check)) } : {}),
  };
}
