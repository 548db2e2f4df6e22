/**
 * Douyin's game wallet in the simulator (platform-apis-3 §3), checking what douyin-coins.ts sends
 * (its comment says which parts are unconfirmed): body not a JSON object 90018; token not working
 * (missing, unknown, replaced, expired) 28001003; `appid` not the token's app 90018; `ts` more than
 * 10 minutes off 90018; `mp_sig` not the recipe under the app's payment secret 90009; then
 * get_balance, game_pay (bill_no idempotent, 90012 on other content, 90013 below the balance) and
 * add_coin (bill_no idempotent). Douyin's server API names no env: every call moves live (env 0) coins.
 */
import { DOUYIN_WALLET_ERRCODES as E, DOUYIN_WALLET_PATHS, douyinMpSig } from "../../platforms/douyin/douyin-coins";
import { JSON_TYPE, type SimReply } from "../platform-simulator";
import type { WalletSimContext } from "./wechat-coins-sim";

const TS_TOLERANCE_SEC = 600;

const reply = (body: Record<string, unknown>): SimReply => ({ contentType: JSON_TYPE, body });
const error = (errcode: number, errmsg: string): SimReply => reply({ errcode, errmsg });

export const DOUYIN_WALLET_SIM_PATHS: readonly string[] = Object.values(DOUYIN_WALLET_PATHS);

export function handleDouyinWallet(path: string, _query: URLSearchParams, rawBody: string, sim: WalletSimContext): SimReply {
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(rawBody);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return error(E.badParams, "bad params");
    body = parsed as Record<string, unknown>;
  } catch {
    return error(E.badParams, "bad params");
  }
  const token = typeof body.access_token === "string" ? body.access_token : "";
  const { status, appId } = token ? sim.tokenStatus(token) : { status: "unknown" as const, appId: undefined };
  if (status !== "valid" || !appId) return error(E.badToken, "access_token invalid");
  if (body.appid !== appId) return error(E.badParams, "appid does not match access_token");
  if (typeof body.ts !== "number" || Math.abs(body.ts - sim.now() / 1000) > TS_TOLERANCE_SEC) return error(E.badParams, "invalid ts");
  const params: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key !== "mp_sig" && (typeof value === "string" || typeof value === "number")) params[key] = value;
  }
  if (body.mp_sig !== douyinMpSig(sim.keys(appId).appKey, path, params)) return error(E.badSig, "mp_sig error");
  const openid = typeof body.openid === "string" ? body.openid : "";
  if (!openid) return error(E.badParams, "openid missing");
  const coins = sim.book.player("douyin", appId, 0, openid);
  if (path === DOUYIN_WALLET_PATHS.balance) return reply({ errcode: 0, errmsg: "success", balance: coins.balance });

  const billNo = typeof body.bill_no === "string" && body.bill_no.length <= 64 ? body.bill_no : "";
  const amount = typeof body.amount === "number" && Number.isInteger(body.amount) && body.amount > 0 ? body.amount : 0;
  if (!billNo || !amount) return error(E.badParams, "invalid bill_no or amount");
  const kind = path === DOUYIN_WALLET_PATHS.pay ? "pay" : "present";
  const fingerprint = `${kind}\0${openid}\0${amount}`;
  const known = sim.book.bill("douyin", appId, 0, billNo);
  if (known) return known.fingerprint === fingerprint ? reply(known.reply) : error(E.duplicate, "bill_no duplicate with different content");
  if (kind === "pay") {
    if (coins.balance < amount) return error(E.insufficient, "balance not enough");
    coins.balance -= amount;
    coins.deductions += 1;
  } else {
    coins.balance += amount;
    coins.presents += 1;
  }
  const answer = { errcode: 0, errmsg: "success", bill_no: billNo, balance: coins.balance };
  sim.book.remember("douyin", appId, 0, billNo, { fingerprint, reply: answer, amount, openid });
  return reply(answer);
}
