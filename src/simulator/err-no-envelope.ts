/** Simulated Douyin-style replies: `{"err_no", "err_tips", "data"}` (the counterpart of the client helper). */
import { JSON_TYPE, type SimReply } from "./platform-simulator";

export function errNoReply(errNo: number, errTips: string, data: Record<string, unknown>): SimReply {
  return { contentType: JSON_TYPE, body: { err_no: errNo, err_tips: errTips, data } };
}
