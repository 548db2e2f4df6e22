/**
 * The simulator's wallet handlers (WeChat coins, Douyin wallet) behind a plain HTTP server, with a
 * token and session keys the test controls: for suites that exercise a wallet client or the payment
 * service without the whole simulator.
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { CoinBook } from "../../src/simulator/payments/coin-book";
import { DOUYIN_WALLET_SIM_PATHS, handleDouyinWallet } from "../../src/simulator/payments/douyin-wallet-sim";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { handleWechatCoins, WECHAT_COIN_SIM_PATHS, type WalletSimContext } from "../../src/simulator/payments/wechat-coins-sim";

export interface WalletSim {
  url: string;
  book: CoinBook;
  /** The one access token the wallets accept, for `appId`. */
  token: string;
  appId: string;
  /** Makes `sessionKey` the player's current key (a login); returns it. */
  login(openid: string, sessionKey?: string): string;
  /** Requests served, per path. */
  calls: Map<string, number>;
  close(): Promise<void>;
}

export async function startWalletSim(appId = "wx_test_app"): Promise<WalletSim> {
  const book = new CoinBook(Date.now);
  const keys = new Map<string, string>();
  const token = crypto.randomBytes(48).toString("hex");
  const calls = new Map<string, number>();
  const contexts = new Map<string, WalletSimContext>();
  for (const platform of ["wechat", "douyin"]) {
    contexts.set(platform, {
      tokenStatus: (t) => (t === token ? { status: "valid", appId } : { status: "unknown" }),
      currentSessionKey: (_app, openid) => keys.get(openid),
      keys: (app) => simulatorPaymentKeys(platform, app),
      book,
      now: Date.now,
    });
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://sim.invalid");
      const raw = Buffer.concat(chunks).toString("utf8");
      calls.set(url.pathname, (calls.get(url.pathname) ?? 0) + 1);
      const answer = WECHAT_COIN_SIM_PATHS.includes(url.pathname)
        ? handleWechatCoins(url.pathname, url.searchParams, raw, contexts.get("wechat")!)
        : DOUYIN_WALLET_SIM_PATHS.includes(url.pathname)
          ? handleDouyinWallet(url.pathname, url.searchParams, raw, contexts.get("douyin")!)
          : { contentType: "application/json", body: { errcode: 404 } };
      res.writeHead(200, { "content-type": answer.contentType });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    book,
    token,
    appId,
    calls,
    login(openid, sessionKey = crypto.randomBytes(16).toString("base64")) {
      keys.set(openid, sessionKey);
      return sessionKey;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
