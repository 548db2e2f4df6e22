/**
 * The order ledger when its database is away or a write's answer is lost. On every shared backend
 * (PostgreSQL behind a proxy, MongoDB on a FerretDB of this suite's own behind a proxy) a failure
 * is a 503 `service_unavailable`, never a raw driver error (a 500). On MongoDB, an orderId whose
 * claim was written but whose answer was lost is completed by the next request for it, at once,
 * instead of being refused for the 30 s a claim takes to count as abandoned.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { createOrderLedger } from "../../src/adapters/store/create-order-ledger";
import type { NewOrder, OrderLedger } from "../../src/core/ports/order-ledger";
import { declareBackend } from "../support/backend-report";
import { ferretdbBinary, startOwnFerretdb, type OwnFerretdb } from "../support/ferretdb";
import { createTestDatabase, type TestDatabase } from "../support/postgres";
import { testDatabaseUrl } from "../support/services";
import { mongoCommand, TcpProxy } from "../support/tcp-proxy";

const binary = ferretdbBinary();
declareBackend({
  name: "order ledger lost answers (own FerretDB)",
  titles: /ledger lost answers: MongoDB/,
  skipReason: binary ? undefined : "FerretDB is not built here (bash scripts/test-services.sh builds it)",
});

const QUERY_TIMEOUT_MS = 400;
const LATE_MS = 1200;
const TIMEOUTS = { connectTimeoutMs: 500, acquireTimeoutMs: 500, queryTimeoutMs: QUERY_TIMEOUT_MS };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const newOrder = (userId = crypto.randomUUID()): NewOrder => ({
  id: crypto.randomUUID(),
  platform: "wechat",
  appId: "wx_app",
  userId,
  openid: "o-1",
  orderId: `order-${crypto.randomBytes(4).toString("hex")}`,
  kind: "coin_spend",
  itemId: "gems_10",
  coins: 10,
  platformOrderId: `p-${crypto.randomBytes(6).toString("hex")}`,
  env: 0,
  createdAt: new Date().toISOString(),
});
const failure = (promise: Promise<unknown>) => promise.then(() => assert.fail("expected a failure"), (err: unknown) => err as { code?: string });

interface Backend {
  name: string;
  skip?: string;
  /** The database behind a proxy, and how to open the ledger on it. */
  start(): Promise<{ proxy: TcpProxy; open(): Promise<OrderLedger>; stop(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: "PostgreSQL",
    skip: testDatabaseUrl ? undefined : "TEST_DATABASE_URL is not set",
    start: async () => {
      const db: TestDatabase = await createTestDatabase(testDatabaseUrl!);
      const url = new URL(db.url);
      const proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
      url.port = String(proxy.port);
      return { proxy, open: () => createOrderLedger({ kind: "postgres", url: url.toString(), ...TIMEOUTS }), stop: async () => (await proxy.close(), await db.drop()) };
    },
  },
  {
    name: "MongoDB",
    skip: binary ? undefined : "FerretDB is not built here",
    start: async () => {
      const ferretdb: OwnFerretdb = await startOwnFerretdb(binary!);
      const proxy = await TcpProxy.start("127.0.0.1", ferretdb.port);
      const url = `mongodb://127.0.0.1:${proxy.port}/ledger?directConnection=true`;
      return { proxy, open: () => createOrderLedger({ kind: "mongodb", url, ...TIMEOUTS }), stop: async () => (await proxy.close(), await ferretdb.remove()) };
    },
  },
];

for (const backend of backends) {
  (backend.skip ? describe.skip : describe)(`ledger lost answers: ${backend.name}`, function () {
    this.timeout(60_000);
    let proxy: TcpProxy;
    let ledger: OrderLedger;
    let stop: () => Promise<void>;

    before(async () => {
      const started = await backend.start();
      proxy = started.proxy;
      stop = started.stop;
      ledger = await started.open();
    });
    afterEach(() => proxy.restore());
    after(async () => {
      await ledger?.close();
      await stop?.();
    });

    it("answers 503 service_unavailable for every ledger call while the database is cut off, and serves again once it is back", async () => {
      const order = newOrder();
      proxy.cut();
      for (const call of [() => ledger.create(order), () => ledger.listByUser(order.userId), () => ledger.findByOrderId(order.userId, order.orderId)]) {
        const started = Date.now();
        const err = await failure(call());
        assert.equal(err.code, "service_unavailable", String(err));
        assert.ok(Date.now() - started < 1500, `answered after ${Date.now() - started} ms`);
      }
      proxy.restore();
      const created = await ledger.create(order);
      assert.equal(created.order.orderId, order.orderId);
    });

    it("answers 503 when a write's answer comes too late, and the next request for the same orderId gets the order", async () => {
      const order = newOrder();
      proxy.delayReplies(LATE_MS, () => true);
      const err = await failure(ledger.create(order));
      assert.equal(err.code, "service_unavailable", String(err));
      proxy.restore();
      await sleep(LATE_MS);
      const again = await ledger.create({ ...order, id: crypto.randomUUID() });
      assert.equal(again.order.orderId, order.orderId);
      assert.equal((await ledger.listByUser(order.userId)).length, 1, "one order for the orderId");
    });

    if (backend.name === "MongoDB") {
      it("completes an order whose orderId claim was written but whose answer was lost, at the next request, without 500s", async () => {
        const order = newOrder();
        proxy.delayReplies(LATE_MS, mongoCommand("insert", "order_keys"));
        const err = await failure(ledger.create(order));
        assert.equal(err.code, "service_unavailable", String(err));
        proxy.restore();
        await sleep(LATE_MS);
        const started = Date.now();
        const again = await ledger.create({ ...order, id: crypto.randomUUID() });
        assert.ok(Date.now() - started < 1000, `answered after ${Date.now() - started} ms`);
        assert.deepEqual([again.order.id, again.created], [order.id, false], "the first request's order, completed");
        assert.equal((await ledger.findByPlatformOrderId(order.platform, order.appId, order.platformOrderId))?.id, order.id);
      });
    }
  });
}
