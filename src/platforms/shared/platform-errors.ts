/** Pieces every platform client uses to turn a platform's answer into our result or error. */
import { AppError, type ErrorCode } from "../../core/errors";
import type { PlatformAccessToken } from "../platform";
import { errorNumber, str } from "./login-code";

/** "System busy": the only platform answer worth retrying, on every platform we know. */
export const BUSY = -1;

/** A platform's error numbers and what they mean for our caller; anything else is `platform_unavailable`. */
export type ErrorTable = Readonly<Record<number, ErrorCode>>;

export function classifyError(table: ErrorTable, errorNo: number): ErrorCode {
  return table[errorNo] ?? "platform_unavailable";
}

/** A token reply is usable only with a token and a positive lifetime. */
export function validatedToken(platform: string, accessToken: unknown, expiresIn: unknown): PlatformAccessToken {
  const token = str(accessToken);
  const expiresInSec = errorNumber(expiresIn);
  if (!token || expiresInSec <= 0) throw new AppError("platform_unavailable", { data: { platform, reason: "malformed_response" } });
  return { accessToken: token, expiresInSec };
}
