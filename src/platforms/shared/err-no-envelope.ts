/**
 * Douyin-style replies: `{"err_no", "err_tips", "data": {...}}` (Douyin's token APIs and its newer
 * server APIs). A failure keeps the platform's `err_no` and `err_tips`.
 */
import { AppError } from "../../core/errors";
import { errorNumber, str } from "./login-code";
import { BUSY, classifyError, type ErrorTable } from "./platform-errors";

export const isErrNoBusy = (reply: Record<string, unknown>): boolean => errorNumber(reply.err_no) === BUSY;

/** The reply's `data` when `err_no` is 0; otherwise the classified failure. */
export function errNoData(platform: string, errorTable: ErrorTable, reply: Record<string, unknown>): Record<string, unknown> {
  const errNo = errorNumber(reply.err_no);
  if (errNo !== 0) {
    throw new AppError(classifyError(errorTable, errNo), { data: { platform, err_no: errNo, err_tips: str(reply.err_tips) } });
  }
  const data = reply.data;
  return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}
