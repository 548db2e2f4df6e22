/**
 * One contract for the CoinWallet port, run over each platform's wallet client against that
 * platform's simulated wallet (the simulator's handlers over real HTTP): signatures made by the
 * client verify in the simulator, bill numbers are idempotent, refusals carry the mapped codes.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { WalletRefusal, type CoinWallet, type PaymentKeys, type WalletCall } from "../../src/core/ports/coin-wallet";
import { DouyinCoinWallet } from "../../src/platforms/douyin/douyin-coins";
import { WechatCoinWallet } from "../../src/platforms/wechat/wechat-coins";
import { CoinBook } from "../../src/simulator/payments/coin-book";
import { DOUYIN_WALLET_SIM_PATHS, handleDouyinWallet } from "../../src/simulator/payments/douyin-wallet-sim";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { handleWechatCoins, WECHAT_COIN_SIM_PATHS, type WalletSimContext } from "../../src/simulator/payments/wechat-coins-sim";
import type { SimReply } from "../../src/simulator/platform-simulator";

const APP_ID = "wx_contract_app";
const TOKEN = "a".repeat(96);
const logger = pino({ level: "silent" });

interface Implementation {
  platform: string;
  paths: readonly string[];
  handle(path: string, query: URLSearchParams, raw: string, sim: WalletSimContext): SimReply;
  wallet(apiBaseUrl: string): CoinWallet;
  /** Whether the platform signs with the player's session key (a stale key is refused). */
  checksSessionKey: boolean;
  /** Whether the platform has a cancel. */
  cancels: boolean;
  /** The env whose coins the platform moves for a call in sandbox (Douyin's API names none: live). */
  sandboxEnv: 0 | 1;
}

const implementations: Implementation[] = [
  {
    platform: "wechat",
    paths: WECHAT_COIN_SIM_PATHS,
    handle: handleWechatCoins,
    wallet: (apiBaseUrl) => new WechatCoinWallet({ apiBaseUrl, timeoutMs: 2000, busyRetries: 0, logger }),
    checksSessionKey: true,
    cancels: true,
    sandboxEnv: 1,
  },
  {
    platform: "douyin",
    paths: DOUYIN_WALLET_SIM_PATHS,
    handle: handleDouyinWallet,
    wallet: (apiBaseUrl) => new DouyinCoinWallet({ apiBaseUrl, timeoutMs: 2000, busyRetries: 0, logger }),
    checksSessionKey: false,
    cancels: false,
    sandboxEnv: 0,
  },
];

for (const impl of implementations) {
  describe(`CoinWallet contract: ${impl.platform} against its simulated wallet`, () => {
    const book = new CoinBook(Date.now);
    const sessionKeys = new Map<string, string>();
    const sim: WalletSimContext = {
      tokenStatus: (token) => (token === TOKEN ? { status: "valid", appId: APP_ID } : { status: "unknown" }),
      currentSessionKey: (_appId, openid) => sessionKeys.get(openid),
      keys: (appId) => simulatorPaymentKeys(impl.platform, appId),
      book,
      now: Date.now,
    };
    let server: http.Server;
    let wallet: CoinWallet;

    before(async () => {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          const url = new URL(req.url ?? "/", "http://sim.invalid");
          const answer = impl.paths.includes(url.pathname)
            ? impl.handle(url.pathname, url.searchParams, Buffer.concat(chunks).toString("utf8"), sim)
            : { contentType: "application/json", body: { errcode: 404 } };
          res.writeHead(200, { "content-type": answer.contentType });
          res.end(JSON.stringify(answer.body));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      wallet = impl.wallet(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const keys = (env: 0 | 1 = 1): PaymentKeys => ({ ...simulatorPaymentKeys(impl.platform, APP_ID), env });
    function player(balance: number, env: 0 | 1 = 1): WalletCall {
      const openid = `o${crypto.randomBytes(8).toString("hex")}`;
      const sessionKey = crypto.randomBytes(16).toString("base64");
      sessionKeys.set(openid, sessionKey);
      book.setBalance(impl.platform, APP_ID, openid, balance, env === 1 ? impl.sandboxEnv : 0);
      return { appId: APP_ID, keys: keys(env), accessToken: TOKEN, openid, sessionKey };
    }
    const bill = () => crypto.randomBytes(12).toString("hex");

    it("reads the balance", async () => {
      assert.deepEqual(await wallet.balance(player(120)), { balance: 120 });
    });

    it("deducts once per bill number, however often it is repeated", async () => {
      const call = player(100);
      const billNo = bill();
      const answers = await Promise.all(Array.from({ length: 10 }, () => wallet.pay(call, { billNo, amount: 30, itemId: "sword" })));
      for (const answer of answers) assert.deepEqual(answer, { balance: 70 });
      assert.equal(book.player(impl.platform, APP_ID, impl.sandboxEnv, call.openid).deductions, 1);
      assert.deepEqual(await wallet.balance(call), { balance: 70 });
    });

    it("refuses a deduction above the balance with insufficient_balance, moving nothing", async () => {
      const call = player(10);
      await assert.rejects(wallet.pay(call, { billNo: bill(), amount: 11, itemId: "sword" }), (err: unknown) => {
        assert.ok(err instanceof WalletRefusal);
        assert.equal(err.code, "insufficient_balance");
        return true;
      });
      assert.deepEqual(await wallet.balance(call), { balance: 10 });
    });

    it("refuses a repeated bill number with other content", async () => {
      const call = player(100);
      const billNo = bill();
      await wallet.pay(call, { billNo, amount: 5, itemId: "sword" });
      await assert.rejects(wallet.pay(call, { billNo, amount: 6, itemId: "sword" }), (err: unknown) => err instanceof WalletRefusal && err.code === "payment_refused");
    });

    it("gives coins once per bill number", async () => {
      const call = player(0);
      const billNo = bill();
      assert.deepEqual(await wallet.present(call, { billNo, amount: 50 }), { balance: 50 });
      assert.deepEqual(await wallet.present(call, { billNo, amount: 50 }), { balance: 50 });
      assert.deepEqual(await wallet.balance(call), { balance: 50 });
    });

    (impl.sandboxEnv === 1 ? it : it.skip)("keeps sandbox and live coins apart, each signed with its own key", async () => {
      const call = player(40, 0);
      assert.deepEqual(await wallet.balance(call), { balance: 40 });
      assert.deepEqual(await wallet.balance({ ...call, keys: keys(1) }), { balance: 0 });
    });

    it("refuses a call signed with another app key as our misconfiguration", async () => {
      const call = player(40);
      const wrong = { ...call, keys: { ...call.keys, appKey: "wrong", sandboxAppKey: "wrong" } };
      await assert.rejects(wallet.balance(wrong), (err: unknown) => err instanceof WalletRefusal && err.code === "platform_misconfigured");
    });

    it("reports a rejected access token so it can be healed", async () => {
      await assert.rejects(wallet.balance({ ...player(1), accessToken: "b".repeat(96) }), (err: unknown) => {
        assert.equal((err as { data?: { reason?: string } }).data?.reason, "access_token_rejected");
        return true;
      });
    });

    if (impl.checksSessionKey) {
      it("refuses a stale session key with payment_login_required", async () => {
        const call = player(40);
        await assert.rejects(wallet.pay({ ...call, sessionKey: "c3RhbGUga2V5" }, { billNo: bill(), amount: 1, itemId: "x" }), (err: unknown) => {
          return err instanceof WalletRefusal && err.code === "payment_login_required";
        });
      });
    }

    if (impl.cancels) {
      it("gives a deduction back once, and never one it did not take", async () => {
        const call = player(100);
        const payBillNo = bill();
        await wallet.pay(call, { billNo: payBillNo, amount: 30, itemId: "sword" });
        const cancelNo = bill();
        await wallet.cancel(call, { billNo: cancelNo, payBillNo, amount: 30 });
        await wallet.cancel(call, { billNo: cancelNo, payBillNo, amount: 30 });
        assert.deepEqual(await wallet.balance(call), { balance: 100 });
        await assert.rejects(wallet.cancel(call, { billNo: bill(), payBillNo, amount: 30 }), (err: unknown) => err instanceof WalletRefusal);
        await assert.rejects(wallet.cancel(call, { billNo: bill(), payBillNo: bill(), amount: 30 }), (err: unknown) => err instanceof WalletRefusal);
        assert.deepEqual(await wallet.balance(call), { balance: 100 });
      });
    }
  });
}
