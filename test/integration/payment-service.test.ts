/**
 * The payment service on a real ledger (SQLite, and PostgreSQL when set) and the simulator's wallets
 * over HTTP: one deduction and one delivery per orderId whatever the replays, refusals recorded,
 * unknown outcomes finished by the reconciler, refunds and grants, item purchases delivered once.
 * "Two processes" are two service instances sharing the ledger (no in-process single-flight between them).
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import type { AppConfig } from "../../src/config/config";
import { createOrderLedger } from "../../src/adapters/store/create-order-ledger";
import { createTestMongoDatabase } from "../support/mongo";
import { AppError } from "../../src/core/errors";
import type { CoinWallet, PaymentKeys } from "../../src/core/ports/coin-wallet";
import type { Order, OrderLedger } from "../../src/core/ports/order-ledger";
import { DouyinCoinWallet } from "../../src/platforms/douyin/douyin-coins";
import { WechatCoinWallet } from "../../src/platforms/wechat/wechat-coins";
import { simulatorPaymentKeys } from "../../src/simulator/payments/payment-keys";
import { OrderReconciler } from "../../src/services/payments/order-reconciler";
import type { PaymentDeps, PaymentPlayer } from "../../src/services/payments/payment-deps";
import { PaymentOperations } from "../../src/services/payments/payment-operations";
import { PaymentService } from "../../src/services/payments/payment-service";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";
import { startWalletSim, type WalletSim } from "../support/wallet-sim";

const logger = pino({ level: "silent" });

const stores: Array<{ name: string; prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }> }> = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-payments-"));
      return { config: { kind: "sqlite", path: path.join(dir, "users.sqlite"), synchronous: "FULL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  stores.push({
    name: "PostgreSQL",
    async prepare() {
      const db = await createTestDatabase(baseUrl);
      return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 2000 }, release: () => db.drop() };
    },
  });
}

if (testMongoUrl) {
  const baseUrl = testMongoUrl;
  stores.push({
    name: "MongoDB",
    async prepare() {
      const db = createTestMongoDatabase(baseUrl);
      return { config: { kind: "mongodb", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 5000 }, release: () => db.drop() };
    },
  });
}

/** A process's payment services over the shared ledger and wallet simulator. */
interface Process {
  payments: PaymentService;
  operations: PaymentOperations;
  reconciler: OrderReconciler;
  delivered: Order[];
  notified: Order[];
  /** Makes the next deliveries fail (the game's hook throws). */
  failDeliveries: boolean;
}

for (const store of stores) {
  describe(`PaymentService on ${store.name} with the simulated wallets`, () => {
    let ledger: OrderLedger;
    let release: () => Promise<void>;
    let sim: WalletSim;
    /** openid → our user id, for item purchases. */
    const users = new Map<string, string>();
    /** userId → the kept key. */
    const kept = new Map<string, { openid: string; sessionKey: string; keptAt?: number }>();
    let wallets: Map<string, CoinWallet>;
    /** Wraps the wallet so a test can lose the platform's answer after it acted. */
    let loseAnswers = false;

    before(async () => {
      let config: AppConfig["store"];
      ({ config, release } = await store.prepare());
      ledger = await createOrderLedger(config);
      sim = await startWalletSim();
      const wechat = new WechatCoinWallet({ apiBaseUrl: sim.url, timeoutMs: 2000, busyRetries: 0, logger });
      const lossy: CoinWallet = {
        platform: "wechat",
        balance: (c) => wechat.balance(c),
        pay: async (c, b) => {
          const answer = await wechat.pay(c, b);
          if (loseAnswers) throw new AppError("platform_unavailable", { data: { reason: "timeout" } });
          return answer;
        },
        cancel: (c, b) => wechat.cancel(c, b),
        present: (c, b) => wechat.present(c, b),
      };
      wallets = new Map<string, CoinWallet>([
        ["wechat", lossy],
        ["douyin", new DouyinCoinWallet({ apiBaseUrl: sim.url, timeoutMs: 2000, busyRetries: 0, logger })],
      ]);
    });
    after(async () => {
      await sim?.close();
      await ledger?.close();
      await release?.();
    });
    afterEach(() => {
      loseAnswers = false;
    });

    function process(options: { keys?: (platform: string) => PaymentKeys | undefined; settleAfterMs?: number; deliveryLeaseMs?: number } = {}): Process {
      const proc = { delivered: [] as Order[], notified: [] as Order[], failDeliveries: false } as Process;
      const deps: PaymentDeps = {
        ledger,
        wallet: (platform) => wallets.get(platform),
        paymentKeys: options.keys ?? ((platform, appId) => ({ ...simulatorPaymentKeys(platform, appId), env: 1 })),
        withAccessToken: (_platform, _appId, call) => call(sim.token),
        keptKey: async (player) => kept.get(player.userId),
        userIdForOpenid: async (_platform, _appId, openid) => users.get(openid),
        notifyPlayer: (order) => proc.notified.push(order),
        logger,
      };
      const timings = { settleAfterMs: options.settleAfterMs ?? 0, replayWaitMs: 3000, deliveryLeaseMs: options.deliveryLeaseMs ?? 200 };
      proc.payments = new PaymentService(deps, timings);
      proc.operations = new PaymentOperations(deps, proc.payments);
      proc.reconciler = new OrderReconciler(deps, proc.payments, proc.operations, { settleAfterMs: 0, retryBillForMs: 3600_000 });
      proc.payments.delivery.onDeliver(async (order) => {
        if (proc.failDeliveries) throw new Error("the game's inventory is down");
        proc.delivered.push(order);
      });
      return proc;
    }

    function player(balance: number, platform = "wechat"): PaymentPlayer & { openid: string } {
      const userId = crypto.randomUUID();
      const openid = `o${crypto.randomBytes(8).toString("hex")}`;
      kept.set(userId, { openid, sessionKey: sim.login(openid) });
      users.set(openid, userId);
      sim.book.setBalance(platform, sim.appId, openid, balance);
      return { userId, platform, appId: sim.appId, openid };
    }
    const coinsOf = (p: { platform: string; openid: string }) => sim.book.player(p.platform, sim.appId, p.platform === "wechat" ? 1 : 0, p.openid);
    const orderId = () => `ord_${crypto.randomBytes(6).toString("hex")}`;
    const rejectsWith = (code: string) => (err: unknown) => {
      assert.equal((err as AppError).code, code);
      return true;
    };

    for (const platform of ["wechat", "douyin"]) {
      it(`${platform}: reads the balance and spends coins once: delivered, the player told`, async () => {
        const proc = process();
        const p = player(100, platform);
        assert.deepEqual(await proc.payments.balance(p), { balance: 100 });
        const { order, created } = await proc.payments.spendCoins(p, { orderId: orderId(), itemId: "sword", coins: 30 });
        assert.equal(created, true);
        assert.equal(order.state, "delivered");
        assert.equal(order.platformOrderId.length, 32);
        assert.deepEqual(proc.delivered.map((o) => o.id), [order.id]);
        assert.deepEqual(proc.notified.map((o) => o.state), ["delivered"]);
        assert.deepEqual(await proc.payments.balance(p), { balance: 70 });
      });

      it(`${platform}: 100 concurrent replays over two processes: one deduction, one delivery, one 201`, async () => {
        // A lease as long as a real one (the default is 30 s): 200 ms can lapse under 100 requests on a
        // loaded machine while the deliverer still works, and a replay then rightly answers `paid`.
        const [a, b] = [process({ deliveryLeaseMs: 10_000 }), process({ deliveryLeaseMs: 10_000 })];
        const p = player(100, platform);
        const request = { orderId: orderId(), itemId: "sword", coins: 30 };
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).payments.spendCoins(p, request)));
        assert.equal(results.filter((r) => r.created).length, 1);
        assert.deepEqual(new Set(results.map((r) => `${r.order.id}:${r.order.state}`)), new Set([`${results[0].order.id}:delivered`]));
        assert.equal(coinsOf(p).deductions, 1);
        assert.equal(coinsOf(p).balance, 70);
        assert.equal(a.delivered.length + b.delivered.length, 1);
      });
    }

    it("refuses a used orderId with another body: 409 order_conflict, nothing deducted", async () => {
      const proc = process();
      const p = player(100);
      const id = orderId();
      await proc.payments.spendCoins(p, { orderId: id, itemId: "sword", coins: 30 });
      await assert.rejects(proc.payments.spendCoins(p, { orderId: id, itemId: "sword", coins: 31 }), rejectsWith("order_conflict"));
      await assert.rejects(proc.payments.spendCoins(p, { orderId: id, itemId: "shield", coins: 30 }), rejectsWith("order_conflict"));
      assert.equal(coinsOf(p).deductions, 1);
    });

    it("answers insufficient_balance, records the order failed and answers the same to a replay", async () => {
      const proc = process();
      const p = player(10);
      const request = { orderId: orderId(), itemId: "sword", coins: 30 };
      await assert.rejects(proc.payments.spendCoins(p, request), rejectsWith("insufficient_balance"));
      await assert.rejects(proc.payments.spendCoins(p, request), rejectsWith("insufficient_balance"));
      assert.equal((await proc.payments.getOrder(p.userId, request.orderId)).state, "failed");
      assert.equal(coinsOf(p).balance, 10);
      assert.equal(proc.delivered.length, 0);
    });

    it("maps the platform refusing the player's session to payment_login_required, nothing delivered", async () => {
      const proc = process();
      const p = player(100);
      kept.set(p.userId, { openid: p.openid, sessionKey: "c3RhbGU=" });
      await assert.rejects(proc.payments.spendCoins(p, { orderId: orderId(), itemId: "sword", coins: 1 }), rejectsWith("payment_login_required"));
      assert.equal(proc.delivered.length, 0);
      assert.equal(coinsOf(p).deductions, 0);
    });

    it("after payment_login_required, a new login and the same orderId: charged once and delivered at once", async () => {
      // A long settle time: the retry must not wait for the reconciler's cutoff once the player logged in again.
      const proc = process({ settleAfterMs: 60_000 });
      const p = player(100);
      const request = { orderId: orderId(), itemId: "sword", coins: 30 };
      kept.set(p.userId, { openid: p.openid, sessionKey: "c3RhbGU=", keptAt: Date.now() - 60_000 });
      await assert.rejects(proc.payments.spendCoins(p, request), rejectsWith("payment_login_required"));
      assert.equal((await proc.payments.getOrder(p.userId, request.orderId)).state, "pending", "nothing was taken; the order waits for the login");
      assert.equal(coinsOf(p).deductions, 0);
      await new Promise((resolve) => setTimeout(resolve, 5));
      kept.set(p.userId, { openid: p.openid, sessionKey: sim.login(p.openid), keptAt: Date.now() });
      const { order, created } = await proc.payments.spendCoins(p, request);
      assert.equal(created, false);
      assert.equal(order.state, "delivered");
      assert.equal(coinsOf(p).deductions, 1);
      assert.equal(coinsOf(p).balance, 70);
      assert.deepEqual(proc.delivered.map((o) => o.id), [order.id]);
    });

    it("answers payment_login_required, not payment_unconfirmed, when a retry's session key is refused; the login after it settles once", async () => {
      const proc = process();
      const p = player(100);
      const request = { orderId: orderId(), itemId: "sword", coins: 30 };
      loseAnswers = true;
      await assert.rejects(proc.payments.spendCoins(p, request), rejectsWith("payment_unconfirmed"));
      loseAnswers = false;
      // The player's session went stale on the platform meanwhile (WeChat 90010).
      kept.set(p.userId, { openid: p.openid, sessionKey: "c3RhbGU=", keptAt: Date.now() });
      for (let i = 0; i < 2; i++) await assert.rejects(proc.payments.spendCoins(p, request), rejectsWith("payment_login_required"));
      assert.equal((await proc.payments.getOrder(p.userId, request.orderId)).state, "pending");
      kept.set(p.userId, { openid: p.openid, sessionKey: sim.login(p.openid), keptAt: Date.now() + 1 });
      assert.equal((await proc.payments.spendCoins(p, request)).order.state, "delivered");
      assert.equal(coinsOf(p).deductions, 1, "the first deduction, found again by its bill number");
    });

    it("answers payments_disabled while the app's keys are not set, and session_key_missing without a kept key", async () => {
      const off = process({ keys: () => undefined });
      const p = player(100);
      await assert.rejects(off.payments.balance(p), rejectsWith("payments_disabled"));
      await assert.rejects(off.payments.spendCoins(p, { orderId: orderId(), itemId: "x", coins: 1 }), rejectsWith("payments_disabled"));
      kept.delete(p.userId);
      await assert.rejects(process().payments.spendCoins(p, { orderId: orderId(), itemId: "x", coins: 1 }), rejectsWith("session_key_missing"));
    });

    it("leaves an order whose answer was lost pending; the reconciler asks again with the same bill: one deduction, delivered", async () => {
      const proc = process();
      const p = player(100);
      const request = { orderId: orderId(), itemId: "sword", coins: 30 };
      loseAnswers = true;
      await assert.rejects(proc.payments.spendCoins(p, request), rejectsWith("payment_unconfirmed"));
      assert.equal((await proc.payments.getOrder(p.userId, request.orderId)).state, "pending");
      assert.equal(coinsOf(p).deductions, 1);
      loseAnswers = false;
      await proc.reconciler.sweep();
      assert.equal((await proc.payments.getOrder(p.userId, request.orderId)).state, "delivered");
      assert.equal(coinsOf(p).deductions, 1);
      assert.equal(proc.delivered.length, 1);
    });

    it("keeps a pending order waiting for the player's next login when no session key is kept", async () => {
      const proc = process();
      const p = player(100);
      const request = { orderId: orderId(), itemId: "sword", coins: 30 };
      loseAnswers = true;
      await assert.rejects(proc.payments.spendCoins(p, request), rejectsWith("payment_unconfirmed"));
      loseAnswers = false;
      const key = kept.get(p.userId)!;
      kept.delete(p.userId);
      await proc.reconciler.sweep();
      assert.equal((await proc.payments.getOrder(p.userId, request.orderId)).state, "pending");
      kept.set(p.userId, { openid: p.openid, sessionKey: sim.login(p.openid) });
      assert.notEqual(kept.get(p.userId)!.sessionKey, key.sessionKey);
      await proc.reconciler.sweep();
      assert.equal((await proc.payments.getOrder(p.userId, request.orderId)).state, "delivered");
      assert.equal(coinsOf(p).deductions, 1);
    });

    it("reconciles past a full page of orders left waiting for their players' login", async () => {
      const proc = process();
      const appId = `app-${crypto.randomBytes(4).toString("hex")}`;
      const at = new Date(Date.now() - 60_000).toISOString();
      for (let i = 0; i < 101; i++) {
        const id = crypto.randomUUID();
        await ledger.create({ id, platform: "wechat", appId, userId: crypto.randomUUID(), openid: "o-gone", orderId: `w${i}`, kind: "coin_spend", itemId: "x", coins: 1, platformOrderId: id, env: 1, createdAt: at });
      }
      const p = player(0);
      const id = crypto.randomUUID();
      const { order } = await ledger.create({ id, platform: "wechat", appId: sim.appId, userId: p.userId, openid: p.openid, orderId: "late", kind: "item_purchase", itemId: "gem", coins: 1, platformOrderId: id, env: 1, state: "paid", createdAt: new Date(Date.now() - 30_000).toISOString() });
      await proc.reconciler.sweep();
      assert.equal((await ledger.findById(order.id))!.state, "delivered");
    });

    it("retries a failed delivery from the reconciler once the lease lapsed, and never delivers twice", async () => {
      const proc = process();
      const p = player(100);
      proc.failDeliveries = true;
      const { order } = await proc.payments.spendCoins(p, { orderId: orderId(), itemId: "sword", coins: 30 });
      assert.equal(order.state, "paid");
      proc.failDeliveries = false;
      await new Promise((resolve) => setTimeout(resolve, 250));
      const other = process();
      // A sweep that fails (a slow store on a loaded machine) is retried by the next one, as in the server.
      for (let sweeps = 0; sweeps < 5 && (await proc.payments.getOrder(p.userId, order.orderId)).state !== "delivered"; sweeps++) {
        await Promise.all([proc.reconciler.sweep(), other.reconciler.sweep()]);
      }
      assert.equal((await proc.payments.getOrder(p.userId, order.orderId)).state, "delivered");
      assert.equal(proc.delivered.length + other.delivered.length, 1);
    });

    it("refunds a delivered coin spend once through cancelpay", async () => {
      const proc = process();
      const p = player(100);
      const { order } = await proc.payments.spendCoins(p, { orderId: orderId(), itemId: "sword", coins: 30 });
      const refunded = await proc.operations.refund(p.userId, order.orderId);
      assert.equal(refunded.state, "refunded");
      assert.equal(refunded.failure, "operator_refund");
      assert.equal((await proc.operations.refund(p.userId, order.orderId)).state, "refunded");
      assert.equal(coinsOf(p).balance, 100);
      assert.equal(coinsOf(p).cancels, 1);
    });

    it("grants coins once per grant id", async () => {
      const proc = process();
      const p = player(0);
      const grant = await proc.operations.grant(p, "compensation-42", 50, "server outage");
      assert.equal(grant.state, "delivered");
      assert.equal((await proc.operations.grant(p, "compensation-42", 50, "server outage")).id, grant.id);
      assert.equal(coinsOf(p).balance, 50);
      await assert.rejects(proc.operations.grant(p, "compensation-42", 60, "server outage"), rejectsWith("order_conflict"));
    });

    it("records a pushed item purchase once and delivers it once, however often it is pushed", async () => {
      const proc = process();
      const p = player(0);
      const purchase = { openid: p.openid, tradeNo: `trade${crypto.randomBytes(6).toString("hex")}`, itemId: "gem_pack", price: 600, env: 1 as const };
      const orders = await Promise.all(Array.from({ length: 5 }, () => proc.operations.recordItemPurchase("wechat", sim.appId, purchase)));
      assert.equal(new Set(orders.map((o) => o.id)).size, 1);
      // Delivery runs after the push is answered: wait for it.
      const scope = { itemApps: [{ platform: "wechat", appId: sim.appId }] };
      for (let i = 0; i < 100 && (await proc.payments.getOrder(p.userId, purchase.tradeNo, undefined, scope)).state !== "delivered"; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await proc.payments.getOrder(p.userId, purchase.tradeNo, undefined, scope)).state, "delivered");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(proc.delivered.length, 1);
      const listed = await proc.payments.listOrders(p.userId, "delivered");
      assert.deepEqual(listed.map((o) => [o.kind, o.platformOrderId]), [["item_purchase", purchase.tradeNo]]);
    });

    const waitDelivered = async (proc: Process, n: number) => {
      for (let i = 0; i < 200 && proc.delivered.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    };

    it("records and delivers an item purchase whose trade number the player already used for a coin spend", async () => {
      const proc = process();
      const p = player(100);
      const shared = orderId();
      const spend = await proc.payments.spendCoins(p, { orderId: shared, itemId: "sword", coins: 30 });
      const bought = await proc.operations.recordItemPurchase("wechat", sim.appId, { openid: p.openid, tradeNo: shared, itemId: "gem_pack", price: 600, env: 1 });
      assert.equal(bought.kind, "item_purchase");
      assert.notEqual(bought.id, spend.order.id);
      await waitDelivered(proc, 2);
      assert.deepEqual(proc.delivered.map((o) => o.kind).sort(), ["coin_spend", "item_purchase"]);
      const scope = { itemApps: [{ platform: "wechat", appId: sim.appId }] };
      assert.equal((await proc.payments.getOrder(p.userId, shared, undefined, scope)).id, spend.order.id, "the orderId names the coin spend");
      const item = await proc.payments.getOrder(p.userId, shared, undefined, { ...scope, kind: "item_purchase" });
      assert.deepEqual([item.id, item.state], [bought.id, "delivered"]);
    });

    it("records and delivers two players' item purchases pushed under one trade number", async () => {
      const proc = process();
      const [a, b] = [player(0), player(0)];
      const tradeNo = orderId();
      const orders = [];
      for (const p of [a, b]) orders.push(await proc.operations.recordItemPurchase("wechat", sim.appId, { openid: p.openid, tradeNo, itemId: "gem_pack", price: 600, env: 1 }));
      assert.deepEqual(orders.map((o) => o.userId), [a.userId, b.userId]);
      await waitDelivered(proc, 2);
      assert.deepEqual(proc.delivered.map((o) => o.userId).sort(), [a.userId, b.userId].sort());
    });
  });
}
