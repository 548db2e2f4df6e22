/** The simulator's stand-in for the platform encrypting player data on a client's behalf. */
import { encryptOpenData } from "../core/open-data-crypto";
import { MALFORMED_BODY, type SimRequest } from "./platform-simulator";
import type { SimulatorState } from "./state";

export function encryptForClient(body: SimRequest["body"], state: SimulatorState): { status: number; body: unknown } {
  if (body === MALFORMED_BODY || body === undefined) return { status: 400, body: { errcode: 400, errmsg: "body must be a JSON object" } };
  const sessionKey = body.session_key;
  const data = body.data;
  const watermarkAppId = body.watermark_appid;
  if (typeof sessionKey !== "string" || !data || typeof data !== "object" || Array.isArray(data) || (watermarkAppId !== undefined && typeof watermarkAppId !== "string")) {
    return { status: 400, body: { errcode: 400, errmsg: "expected {session_key: string, data: object, watermark_appid?: string}" } };
  }
  const owner = state.sessionKeyOwner(sessionKey);
  if (!owner) return { status: 404, body: { errcode: 404, errmsg: "session_key was not issued by this simulator" } };
  const watermark = { timestamp: Math.floor(state.now() / 1000), appid: watermarkAppId ?? owner.appId };
  return { status: 200, body: encryptOpenData({ ...(data as Record<string, unknown>), watermark }, sessionKey) };
}
