/**
 * Orders recorded before each kind of order had its own keys keep working after the upgrade, on
 * every store: an item purchase pushed again is the same order (never a second delivery), its trade
 * number finds it, and a trade number equal to an old coin orderId, or another player's push under
 * an old trade number, is recorded as a new order. SQL: the old table (both keys table-wide) is
 * migrated by 0008; MongoDB: the old key claims are still read.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SqliteDatabase from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import mongoose from "mongoose";
import pg from "pg";
import type { AppConfig } from "../../src/config/config";
import type { NewOrder, OrderLedger } from "../../src/core/ports/order-ledger";
import { createOrderLedger } from "../../src/adapters/store/create-order-ledger";
import { createOrderTables } from "../../src/adapters/store/sql/order-ledger-schema";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

const suffix = () => crypto.randomBytes(5).toString("hex");
const CREATED = "2026-01-01T00:00:00.000Z";

/** What the store held before the upgrade: a coin spend and an item purchase of one player. */
function legacyOrders() {
  const userId = crypto.randomUUID();
  const coinId = crypto.randomUUID();
  const itemId = crypto.randomUUID();
  const base = { platform: "wechat", appId: "wx_app", userId, openid: "o-legacy", itemId: "sword", env: 1 as const, createdAt: CREATED };
  const coin: NewOrder = { ...base, id: coinId, orderId: `coin-${suffix()}`, kind: "coin_spend", coins: 30, platformOrderId: coinId.replace(/-/g, ""), state: "pending" };
  const tradeNo = `trade-${suffix()}`;
  const item: NewOrder = { ...base, id: itemId, orderId: tradeNo, kind: "item_purchase", coins: 600, platformOrderId: tradeNo, state: "paid" };
  return { userId, coin, item };
}

const sqlRow = (o: NewOrder) => ({
  id: o.id,
  platform: o.platform,
  app_id: o.appId,
  user_id: o.userId,
  openid: o.openid,
  order_id: o.orderId,
  kind: o.kind,
  item_id: o.itemId,
  coins: o.coins,
  platform_order_id: o.platformOrderId,
  env: o.env,
  state: o.state ?? "pending",
  attempts: 0,
  created_at: o.createdAt,
  updated_at: o.createdAt,
});

interface Store {
  name: string;
  /** A store holding the legacy orders as the previous version wrote them; its config for the upgraded ledger. */
  seed(orders: NewOrder[]): Promise<{ config: AppConfig["store"]; release(): Promise<void> }>;
}

const stores: Store[] = [
  {
    name: "SQLite",
    async seed(orders) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-order-keys-"));
      const file = path.join(dir, "users.sqlite");
      const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SqliteDatabase(file) }) });
      await createOrderTables(db, "sqlite");
      for (const o of orders) await db.insertInto("orders").values(sqlRow(o)).execute();
      await db.destroy();
      return { config: { kind: "sqlite", path: file, synchronous: "FULL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  stores.push({
    name: "PostgreSQL",
    async seed(orders) {
      const created = await createTestDatabase(baseUrl);
      const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: created.url, max: 1 }) }) });
      await createOrderTables(db, "postgres");
      for (const o of orders) await db.insertInto("orders").values(sqlRow(o)).execute();
      await db.destroy();
      return { config: { kind: "postgres", url: created.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 2000 }, release: () => created.drop() };
    },
  });
}
if (testMongoUrl) {
  const baseUrl = testMongoUrl;
  stores.push({
    name: "MongoDB",
    async seed(orders) {
      const created = createTestMongoDatabase(baseUrl);
      const connection = await mongoose.createConnection(created.url, { serverSelectionTimeoutMS: 5000 }).asPromise();
      const part = encodeURIComponent;
      for (const o of orders) {
        // As the previous version claimed every order's keys: (user, orderId) and (platform, app, number).
        await connection.collection("order_keys").insertOne({ _id: `${part(o.userId)}:${part(o.orderId)}` as any, id: o.id, at: new Date(o.createdAt) });
        await connection.collection("order_numbers").insertOne({ _id: `${part(o.platform)}:${part(o.appId)}:${part(o.platformOrderId)}` as any, id: o.id, at: new Date(o.createdAt) });
        const { id, state, createdAt, ...facts } = o;
        await connection.collection("orders").insertOne({ _id: id as any, ...facts, initialState: state ?? "pending", createdAt: new Date(createdAt) });
      }
      await connection.close();
      return { config: { kind: "mongodb", url: created.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 5000 }, release: () => created.drop() };
    },
  });
}

for (const store of stores) {
  describe(`order keys after the upgrade: ${store.name}`, function () {
    this.timeout(30_000);
    const { userId, coin, item } = legacyOrders();
    let ledger: OrderLedger;
    let release: () => Promise<void>;

    before(async () => {
      let config: AppConfig["store"];
      ({ config, release } = await store.seed([coin, item]));
      ledger = await createOrderLedger(config);
    });
    after(async () => {
      await ledger?.close();
      await release?.();
    });

    it("finds the old orders by their keys, each in its own kind", async () => {
      assert.equal((await ledger.findByOrderId(userId, coin.orderId))?.id, coin.id);
      assert.equal((await ledger.findByPlatformOrderId("wechat", "wx_app", coin.platformOrderId))?.id, coin.id);
      assert.equal((await ledger.findItemPurchase("wechat", "wx_app", userId, item.platformOrderId))?.id, item.id);
      assert.equal(await ledger.findByOrderId(userId, item.orderId), null, "a trade number is no coin orderId");
    });

    it("answers an old item purchase pushed again with the same order", async () => {
      const again = await ledger.create({ ...item, id: crypto.randomUUID() });
      assert.equal(again.created, false);
      assert.equal(again.order.id, item.id);
    });

    it("records a push under an old coin orderId, and another player's push under an old trade number, as new orders", async () => {
      const underCoin = await ledger.create({ ...item, id: crypto.randomUUID(), orderId: coin.orderId, platformOrderId: coin.orderId });
      assert.equal(underCoin.created, true);
      const otherPlayer = await ledger.create({ ...item, id: crypto.randomUUID(), userId: crypto.randomUUID(), openid: "o-other" });
      assert.equal(otherPlayer.created, true);
      assert.equal((await ledger.findItemPurchase("wechat", "wx_app", userId, item.platformOrderId))?.id, item.id);
    });
  });
}
