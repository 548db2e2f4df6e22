/**
 * The first checks of every WeChat server API call the simulator's payment paths answer, in WeChat's
 * order: the body must be a JSON object (47001), then the access token must be present (41001),
 * well-formed (40014), current (40001) and unexpired (42001). What follows is each path's own.
 */
import { parseJsonObject } from "../../platforms/shared/json-object";
import { JSON_TYPE, type SimReply } from "../platform-simulator";
import type { TokenStatus } from "../tokens";

export const simReply = (body: Record<string, unknown>): SimReply => ({ contentType: JSON_TYPE, body });
export const simError = (errcode: number, errmsg: string): SimReply => simReply({ errcode, errmsg });

export type WechatApiCall = { body: Record<string, unknown>; appId: string } | { refused: SimReply };

export function readWechatApiCall(
  query: URLSearchParams,
  rawBody: string,
  tokenStatus: (token: string) => { status: TokenStatus | "malformed"; appId?: string },
): WechatApiCall {
  const body = parseJsonObject(rawBody);
  if (!body) return { refused: simError(47001, "data format error") };
  const token = query.get("access_token") ?? "";
  if (!token) return { refused: simError(41001, "access_token missing") };
  const { status, appId } = tokenStatus(token);
  if (status === "malformed") return { refused: simError(40014, "invalid access_token") };
  if (status === "expired") return { refused: simError(42001, "access_token expired") };
  if (status !== "valid" || !appId) return { refused: simError(40001, "invalid credential, access_token is invalid or not latest") };
  return { body, appId };
}
