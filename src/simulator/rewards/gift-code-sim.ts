/**
 * Douyin's gift codes as the simulator plays them: `POST /__simulator/gift {platform: "douyin", delivery:
 * "code", …}` issues a code bound to one player and pack (what a live-room lucky bag hands a winner),
 * and `POST /mgplatform/api/gift/receive_reward` redeems it as douyin-gift-code.ts reads Douyin:
 * - the `access-token` header must be a live token of an app (else 28001003, expired 28001008);
 * - `gift_code`, `open_id`, `uuid` are required strings (else 28001007);
 * - a code this app never issued, or issued to another player → 28006041;
 * - the first redemption fixes the code's uuid; the same uuid again gets the same success (our reading
 *   of "幂等"), any other uuid 28006040;
 * - success: `{err_no: 0, err_msg: "success", log_id, gift_info: {gift_id, name, play_type, icon_url,
 *   prop_list, gift_effective_start_time, gift_effective_end_time, user_receive_guide}}`.
 * The error numbers and the repeat's answer are the module's unconfirmed reading (see there).
 */
import crypto from "node:crypto";
import { DOUYIN_GIFT_CODE_ERRORS as E } from "../../platforms/douyin/douyin-gift-code";
import { parseJsonObject } from "../../platforms/shared/json-object";
import { newRid } from "../codes";
import { JSON_TYPE, type SimReply } from "../platform-simulator";
import type { TokenStatus } from "../tokens";

interface IssuedCode {
  appId: string;
  openid: string;
  giftId: string;
  issuedAt: number;
  /** The uuid of the redemption that used it. */
  redeemedWith?: string;
  /** receive_reward calls naming this code, answered or refused. */
  calls: number;
}

const MAX_CODES = 100_000;

export class GiftCodeSim {
  private readonly codes = new Map<string, IssuedCode>();

  constructor(private readonly now: () => number) {}

  /** A new code of `appId` for one player and pack; `code` picks it (a test's), else one is made up. */
  issue(appId: string, openid: string, giftId: string, code?: string): string {
    // A long-running simulator forgets the oldest codes rather than grow without bound.
    if (this.codes.size >= MAX_CODES) this.codes.delete(this.codes.keys().next().value!);
    const id = code ?? `mg${Math.floor(this.now() / 1000)}_${crypto.randomBytes(6).toString("hex")}`;
    if (!this.codes.has(`${appId}\0${id}`)) this.codes.set(`${appId}\0${id}`, { appId, openid, giftId, issuedAt: this.now(), calls: 0 });
    return id;
  }

  /** How often the server asked Douyin about a code (replays answered from its ledger do not). */
  calls(appId: string, code: string): number {
    return this.codes.get(`${appId}\0${code}`)?.calls ?? 0;
  }

  redeem(headers: Record<string, string>, raw: string, tokenStatus: (token: string) => { status: TokenStatus | "malformed"; appId?: string }): SimReply {
    const reply = (errNo: number, errMsg: string, giftInfo?: Record<string, unknown>): SimReply => ({
      contentType: JSON_TYPE,
      body: { err_no: errNo, err_msg: errMsg, log_id: newRid().replace(/-/g, ""), ...(giftInfo ? { gift_info: giftInfo } : {}) },
    });
    const { status, appId } = tokenStatus(headers["access-token"] ?? "");
    if (status === "expired") return reply(E.expiredToken, "access_token 过期");
    if (status !== "valid" || !appId) return reply(E.badToken, "access_token 无效");
    const body = parseJsonObject(raw);
    const [code, openid, uuid] = ["gift_code", "open_id", "uuid"].map((k) => (typeof body?.[k] === "string" ? (body[k] as string) : ""));
    if (!code || !openid || !uuid) return reply(E.badParams, "参数错误");
    const issued = this.codes.get(`${appId}\0${code}`);
    if (issued) issued.calls += 1;
    if (!issued || issued.openid !== openid) return reply(E.notThisPlayers, "礼包码与 open_id 绑定关系有误");
    issued.redeemedWith ??= uuid;
    if (issued.redeemedWith !== uuid) return reply(E.alreadyRedeemed, "礼包码重复核销");
    const start = Math.floor(issued.issuedAt / 1000);
    return reply(0, "success", {
      gift_id: issued.giftId,
      name: `simulated ${issued.giftId}`,
      play_type: 1,
      icon_url: "",
      prop_list: [],
      gift_effective_start_time: start,
      gift_effective_end_time: start + 30 * 86_400,
      user_receive_guide: [],
    });
  }
}
