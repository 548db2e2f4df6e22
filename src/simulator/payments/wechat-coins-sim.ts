/**
 * WeChat's game-coin API in the simulator (platform-apis-3 §1): `/wxa/game/getbalance`, `pay`,
 * `cancelpay`, `present`. The handler gets the raw body, because both signatures are over the exact
 * bytes sent. Checks, in this order (each answer is WeChat's errcode; those marked unconfirmed in
 * the sheet are the best evidence):
 * - body not a JSON object: 47001; access token missing 41001, malformed 40014, unknown or replaced 40001, expired 42001;
 * - `env` not 0/1, `offer_id` not the app's, `ts` more than 10 minutes off, bad amounts: 90018 (unconfirmed);
 * - `pay_sig` not HMAC-SHA256(AppKey of that env, uri&body): 90009 (unconfirmed for WeChat);
 * - `signature` missing or not hex, `sig_method` not hmac_sha256: 90011; not HMAC-SHA256 under the
 *   player's current session key (or the player never logged in to this app): 90010;
 * - pay: a known bill_no answers its first reply (nothing moves) or 90012 if its content differs;
 *   balance below the amount: 90013 (not remembered: the same bill may succeed after a top-up);
 * - cancelpay: `pay_bill_no` unknown for this player 90018, already given back by another bill 90012.
 * Successes carry `errcode: 0, errmsg: "ok"`.
 */
import { WECHAT_COIN_PATHS, wechatPaySig, wechatUserSignature } from "../../platforms/wechat/wechat-coins";
import type { SimReply } from "../platform-simulator";
import type { TokenStatus } from "../tokens";
import type { CoinBook, Env } from "./coin-book";
import type { SimulatorPaymentKeys } from "./payment-keys";
import { readWechatApiCall, simError, simReply } from "./wechat-api-call";

/** What the wallet handlers need from the simulator, for one platform. */
export interface WalletSimContext {
  tokenStatus(token: string): { status: TokenStatus | "malformed"; appId?: string };
  currentSessionKey(appId: string, openid: string): string | undefined;
  keys(appId: string): SimulatorPaymentKeys;
  book: CoinBook;
  now(): number;
}

const TS_TOLERANCE_SEC = 600;
const HEX64 = /^[0-9a-f]{64}$/;

const reply = simReply;
const error = simError;
const ok = (fields: Record<string, unknown>): SimReply => reply({ errcode: 0, errmsg: "ok", ...fields });

export const WECHAT_COIN_SIM_PATHS: readonly string[] = Object.values(WECHAT_COIN_PATHS);

export function handleWechatCoins(path: string, query: URLSearchParams, rawBody: string, sim: WalletSimContext): SimReply {
  const call = readWechatApiCall(query, rawBody, sim.tokenStatus);
  if ("refused" in call) return call.refused;
  const { body, appId } = call;

  const keys = sim.keys(appId);
  const env = body.env;
  if (env !== 0 && env !== 1) return error(90018, "invalid env");
  if (body.offer_id !== keys.offerId) return error(90018, "invalid offer_id");
  const ts = body.ts;
  if (typeof ts !== "number" || Math.abs(ts - sim.now() / 1000) > TS_TOLERANCE_SEC) return error(90018, "invalid ts");
  const payKey = env === 1 ? keys.sandboxAppKey : keys.appKey;
  if (query.get("pay_sig") !== wechatPaySig(payKey, path, rawBody)) return error(90009, "pay_sig error");
  const signature = query.get("signature") ?? "";
  if (query.get("sig_method") !== "hmac_sha256" || !HEX64.test(signature)) return error(90011, "signature error");
  const openid = typeof body.openid === "string" ? body.openid : "";
  const sessionKey = openid ? sim.currentSessionKey(appId, openid) : undefined;
  if (!sessionKey || signature !== wechatUserSignature(sessionKey, rawBody)) return error(90010, "user not login or session_key expired");

  const coins = sim.book.player("wechat", appId, env, openid);
  switch (path) {
    case WECHAT_COIN_PATHS.balance:
      return ok({ balance: coins.balance, gen_balance: 0, first_save: false, save_amt: 0, save_sum: 0, cost_sum: 0, present_sum: 0 });
    case WECHAT_COIN_PATHS.pay:
      return pay(sim, appId, env, openid, body);
    case WECHAT_COIN_PATHS.cancel:
      return cancel(sim, appId, env, openid, body);
    case WECHAT_COIN_PATHS.present:
      return present(sim, appId, env, openid, body);
    default:
      return error(404, `no simulator route for POST ${path}`);
  }
}

function billNumber(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  return typeof value === "string" && value.length > 0 && value.length <= 64 ? value : "";
}

function positive(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0;
}

/** A repeat of a known bill: its first reply if it is the same request, else 90012. */
function repeat(sim: WalletSimContext, appId: string, env: Env, billNo: string, fingerprint: string): SimReply | undefined {
  const known = sim.book.bill("wechat", appId, env, billNo);
  if (!known) return undefined;
  return known.fingerprint === fingerprint ? reply(known.reply) : error(90012, "bill_no duplicate with different content");
}

function pay(sim: WalletSimContext, appId: string, env: Env, openid: string, body: Record<string, unknown>): SimReply {
  const billNo = billNumber(body, "bill_no");
  const amount = positive(body.amount);
  if (!billNo || !amount) return error(90018, "invalid bill_no or amount");
  const fingerprint = `pay\0${openid}\0${amount}`;
  const known = repeat(sim, appId, env, billNo, fingerprint);
  if (known) return known;
  const coins = sim.book.player("wechat", appId, env, openid);
  if (coins.balance < amount) return error(90013, "balance not enough");
  coins.balance -= amount;
  coins.deductions += 1;
  const answer = { errcode: 0, errmsg: "ok", bill_no: billNo, balance: coins.balance, used_gen_amount: 0 };
  sim.book.remember("wechat", appId, env, billNo, { fingerprint, reply: answer, amount, openid });
  return reply(answer);
}

function cancel(sim: WalletSimContext, appId: string, env: Env, openid: string, body: Record<string, unknown>): SimReply {
  const billNo = billNumber(body, "bill_no");
  const payBillNo = billNumber(body, "pay_bill_no");
  if (!billNo || !payBillNo) return error(90018, "invalid bill_no or pay_bill_no");
  const fingerprint = `cancel\0${openid}\0${payBillNo}`;
  const known = repeat(sim, appId, env, billNo, fingerprint);
  if (known) return known;
  const paid = sim.book.bill("wechat", appId, env, payBillNo);
  if (!paid || !paid.fingerprint.startsWith("pay\0") || paid.openid !== openid) return error(90018, "pay_bill_no not found");
  if (paid.cancelledBy) return error(90012, "pay_bill_no already cancelled");
  paid.cancelledBy = billNo;
  const coins = sim.book.player("wechat", appId, env, openid);
  coins.balance += paid.amount;
  coins.cancels += 1;
  const answer = { errcode: 0, errmsg: "ok", bill_no: billNo };
  sim.book.remember("wechat", appId, env, billNo, { fingerprint, reply: answer, amount: paid.amount, openid });
  return reply(answer);
}

function present(sim: WalletSimContext, appId: string, env: Env, openid: string, body: Record<string, unknown>): SimReply {
  const billNo = billNumber(body, "bill_no");
  const amount = positive(body.present_counts);
  if (!billNo || !amount) return error(90018, "invalid bill_no or present_counts");
  const fingerprint = `present\0${openid}\0${amount}`;
  const known = repeat(sim, appId, env, billNo, fingerprint);
  if (known) return known;
  const coins = sim.book.player("wechat", appId, env, openid);
  coins.balance += amount;
  coins.presents += 1;
  const answer = { errcode: 0, errmsg: "ok", bill_no: billNo, balance: coins.balance };
  sim.book.remember("wechat", appId, env, billNo, { fingerprint, reply: answer, amount, openid });
  return reply(answer);
}
