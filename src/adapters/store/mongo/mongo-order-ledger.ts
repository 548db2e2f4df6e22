/**
 * The OrderLedger on MongoDB, race-free on FerretDB 1.x too, whose updates are read-modify-write
 * and whose only race-free write is an insert into `_id` (../shared ferretdb notes; mongo-models.ts).
 * So nothing that decides a step is ever updated; every step is an insert-only claim:
 *
 *   orders          the order's fixed facts; `_id` = our order id
 *   order_keys      `_id` = "<userId>:<orderId>" → the order id (a user's coin orderId is unique)
 *   order_numbers   `_id` = "<platform>:<appId>:<platformOrderId>" → the order id (a coin bill number is unique)
 *   order_trades    `_id` = "<platform>:<appId>:<userId>:<tradeNo>" → the order id: an item purchase's own key
 *                   (each kind its own keys: a trade number never finds a coin order, nor another player's
 *                   purchase). Item purchases recorded before it claimed order_keys and order_numbers; those
 *                   claims are still read for them (legacyItemPurchase).
 *   order_states    `_id` = "<order id>:<state left>": the order left that state for `to`. States never
 *                   recur (pending → paid → delivered → refunded, pending → failed, paid → refunded; a
 *                   refused push: pending → failed → paid → delivered, or failed → refunded), so one
 *                   claim per state left lets exactly one transition out of each state win.
 *   order_attempts  `_id` = "<order id>:<n>": delivery attempt n, with its lease.
 *
 * The current state is the chain of claims from the initial state; reads are point reads by `_id`
 * (FerretDB's SQLite backend pushes no other filter down). `settled` on the order is a hint for the
 * reconciler's sweep, set to true when the order settles (back to false only when an operator
 * delivers a refused push after all): a lost write of it leaves at worst a reopened push to the
 * console's queue, which finds those by their claims.
 */
import { randomUUID } from "node:crypto";
import type { Collection, Connection } from "mongoose";
import type { CreateOrderResult, NewOrder, Order, OrderKind, OrderLedger, OrderListQuery, OrderState, StateChange } from "../../../core/ports/order-ledger";
import { ClaimInFlightError, deleteOwned, IN_FLIGHT_WAIT_MS, isFerretdb, ORPHAN_AFTER_MS } from "./claims";
import { insertOrReadBack } from "./unknown-outcome";
import { countOrdersByState } from "./mongo-order-counts";
import { coinOrder, orderDoc, orderKey, platformKey, tradeKey, type AttemptClaim, type KeyClaim, type OrderDoc, type StateClaim } from "./mongo-order-docs";

const TERMINAL: ReadonlySet<OrderState> = new Set(["delivered", "failed", "refunded"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export class MongoOrderLedger implements OrderLedger {
  private readonly orders: Collection<OrderDoc>;
  private readonly keys: Collection<KeyClaim>;
  private readonly numbers: Collection<KeyClaim>;
  private readonly trades: Collection<KeyClaim>;
  private readonly states: Collection<StateClaim>;
  private readonly attempts: Collection<AttemptClaim>;
  /** FerretDB: owner checks by a read, deletes by `_id` (claims.ts releaseClaim). */
  private byIdOnly = true;

  constructor(
    private readonly connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.orders = connection.collection<OrderDoc>("orders");
    this.keys = connection.collection<KeyClaim>("order_keys");
    this.numbers = connection.collection<KeyClaim>("order_numbers");
    this.trades = connection.collection<KeyClaim>("order_trades");
    this.states = connection.collection<StateClaim>("order_states");
    this.attempts = connection.collection<AttemptClaim>("order_attempts");
  }

  async migrate(): Promise<void> {
    // Plain (non-unique) indexes only: uniqueness is the claims' `_id`.
    await this.orders.createIndex({ userId: 1, createdAt: -1 });
    await this.orders.createIndex({ settled: 1 });
    this.byIdOnly = await isFerretdb(this.connection.db!);
  }

  /**
   * Claims the user's orderId, then the platform order number, then writes the order. Every step
   * is an insert resolved by reading back when its answer is lost (unknown-outcome.ts), and a
   * claim found without its order gets that order completed (`complete`), so neither a lost
   * answer nor a crash ever leaves an orderId refused or waiting.
   */
  async create(order: NewOrder): Promise<CreateOrderResult> {
    const doc = orderDoc(order);
    if (order.kind === "item_purchase") return this.createItemPurchase(doc);
    const key = orderKey(order.userId, order.orderId);
    for (;;) {
      const existing = await this.heldBy(this.keys, key);
      if (existing) return { order: existing, created: false };
      const claimed = await insertOrReadBack(this.keys, { _id: key, id: doc._id, at: new Date(), order: doc }, (stored) => stored.id === doc._id);
      if (claimed.kind === "held") continue;
      const completed = await this.complete(doc);
      return { order: completed, created: completed.id === doc._id };
    }
  }

  /** An item purchase: one claim on (platform, app, player, trade number), then the order, each read back when unanswered. */
  private async createItemPurchase(doc: OrderDoc): Promise<CreateOrderResult> {
    const key = tradeKey(doc.platform, doc.appId, doc.userId, doc.platformOrderId);
    for (;;) {
      const existing = (await this.heldBy(this.trades, key, (found) => this.writeOrder(found))) ?? (await this.legacyItemPurchase(doc.platform, doc.appId, doc.userId, doc.platformOrderId));
      if (existing) return { order: existing, created: false };
      const claimed = await insertOrReadBack(this.trades, { _id: key, id: doc._id, at: new Date(), order: doc }, (stored) => stored.id === doc._id);
      if (claimed.kind === "held") continue;
      return { order: await this.writeOrder(doc), created: true };
    }
  }

  private async writeOrder(doc: OrderDoc): Promise<Order> {
    await insertOrReadBack(this.orders, doc, () => true, `order ${doc._id}`);
    return this.toOrder(doc);
  }

  /** An item purchase recorded before order_trades: found by its old number claim, if it is this player's. */
  private async legacyItemPurchase(platform: string, appId: string, userId: string, tradeNo: string): Promise<Order | null> {
    const held = await this.byClaim(this.numbers, platformKey(platform, appId, tradeNo));
    return held && held.kind === "item_purchase" && held.userId === userId ? held : null;
  }

  /**
   * Claims the order's platform number and writes the order, as its creator or as whoever found
   * its key claim alone. A number held by another order gives the key claim up: that order is
   * the answer (the same payment, asked for under another orderId).
   */
  private async complete(doc: OrderDoc): Promise<Order> {
    const numberKey = platformKey(doc.platform, doc.appId, doc.platformOrderId);
    const number = await insertOrReadBack(this.numbers, { _id: numberKey, id: doc._id, at: new Date(), order: doc }, (stored) => stored.id === doc._id);
    if (number.kind === "held") {
      await deleteOwned(this.keys, orderKey(doc.userId, doc.orderId), { id: doc._id }, this.byIdOnly);
      const holder = await this.heldBy(this.numbers, numberKey);
      if (holder) return holder;
      throw new ClaimInFlightError("order_numbers");
    }
    return this.writeOrder(doc);
  }

  /**
   * The order a claim points at; null when there is no claim, or after removing one a crash left
   * without the order it was for. A claim that carries its order gets it completed; an older one
   * is waited for briefly, then answered with a retryable 503 until it is ORPHAN_AFTER_MS old.
   */
  private async heldBy(collection: Collection<KeyClaim>, key: string, complete = (doc: OrderDoc) => this.complete(doc)): Promise<Order | null> {
    const waitUntil = Date.now() + IN_FLIGHT_WAIT_MS;
    for (;;) {
      const claim = await collection.findOne({ _id: key });
      if (!claim) return null;
      const doc = await this.orders.findOne({ _id: claim.id });
      if (doc) return this.toOrder(doc);
      if (claim.order) return complete(claim.order);
      // The wall clock: this is about a crash, not about orders' times.
      if (Date.now() - claim.at.getTime() >= ORPHAN_AFTER_MS) {
        await deleteOwned(collection, key, { id: claim.id }, this.byIdOnly);
        return null;
      }
      if (Date.now() >= waitUntil) throw new ClaimInFlightError(collection.collectionName);
      await sleep(20);
    }
  }

  async findById(id: string): Promise<Order | null> {
    const doc = await this.orders.findOne({ _id: id });
    return doc ? this.toOrder(doc) : null;
  }

  async findByOrderId(userId: string, orderId: string): Promise<Order | null> {
    return coinOrder(await this.byClaim(this.keys, orderKey(userId, orderId)));
  }

  async findByPlatformOrderId(platform: string, appId: string, platformOrderId: string): Promise<Order | null> {
    return coinOrder(await this.byClaim(this.numbers, platformKey(platform, appId, platformOrderId)));
  }

  async findItemPurchase(platform: string, appId: string, userId: string, tradeNo: string): Promise<Order | null> {
    return (await this.byClaim(this.trades, tradeKey(platform, appId, userId, tradeNo))) ?? this.legacyItemPurchase(platform, appId, userId, tradeNo);
  }

  private async byClaim(collection: Collection<KeyClaim>, key: string): Promise<Order | null> {
    const claim = await collection.findOne({ _id: key });
    const doc = claim ? await this.orders.findOne({ _id: claim.id }) : null;
    return doc ? this.toOrder(doc) : null;
  }

  /** A player's orders are few; they are read whole and filtered by their current state here. */
  async listByUser(userId: string, query: OrderListQuery = {}): Promise<Order[]> {
    const docs = await this.orders.find({ userId }).sort({ createdAt: -1, _id: -1 }).limit(1000).toArray();
    const orders = await Promise.all(docs.map((d) => this.toOrder(d)));
    return orders.filter((o) => !query.state || o.state === query.state).slice(0, query.limit ?? 50);
  }

  async transition(id: string, from: OrderState, to: OrderState, change: StateChange): Promise<Order | null> {
    const doc = await this.orders.findOne({ _id: id });
    if (!doc) return null;
    const current = await this.toOrder(doc);
    if (current.state !== from) return null;
    const at = new Date(change.at);
    const claim: StateClaim = { _id: `${id}:${from}`, order: id, platform: doc.platform, kind: doc.kind, from, to, at, ...(change.failure !== undefined ? { failure: change.failure } : {}), writer: randomUUID() };
    if ((await insertOrReadBack(this.states, claim, (stored) => stored.writer === claim.writer)).kind === "held") return null;
    if (TERMINAL.has(to)) await this.orders.updateOne({ _id: doc._id }, { $set: { settled: true } });
    // A refused push an operator delivers after all (failed → paid) is the reconciler's again.
    else if (doc.settled) await this.orders.updateOne({ _id: doc._id }, { $set: { settled: false } });
    return this.toOrder(doc);
  }

  async claimDelivery(id: string, expectedAttempts: number, now: string, leaseUntil: string): Promise<Order | null> {
    const doc = await this.orders.findOne({ _id: id });
    if (!doc) return null;
    const current = await this.toOrder(doc);
    if (current.state !== "paid" || current.attempts !== expectedAttempts) return null;
    if (current.leaseUntil !== null && current.leaseUntil > now) return null;
    const attempt: AttemptClaim = { _id: `${id}:${expectedAttempts + 1}`, order: id, leaseUntil: new Date(leaseUntil), at: new Date(now), writer: randomUUID() };
    if ((await insertOrReadBack(this.attempts, attempt, (stored) => stored.writer === attempt.writer)).kind === "held") return null;
    return this.toOrder(doc);
  }

  async listUnsettled(changedBefore: string, limit: number, after?: Pick<Order, "updatedAt" | "id">): Promise<Order[]> {
    const docs = await this.orders.find({ settled: { $ne: true } }).limit(10_000).toArray();
    const orders = await Promise.all(docs.map((d) => this.toOrder(d)));
    const later = (o: Order) => !after || o.updatedAt > after.updatedAt || (o.updatedAt === after.updatedAt && o.id > after.id);
    const unsettled = orders.filter((o) => (o.state === "pending" || o.state === "paid") && o.updatedAt < changedBefore && later(o));
    // A terminal order whose hint was lost (a crash after its claim): set it now, so sweeps skip it.
    const stale = orders.filter((o) => TERMINAL.has(o.state)).map((o) => o.id);
    if (stale.length > 0) await this.orders.updateMany({ _id: { $in: stale } }, { $set: { settled: true } });
    return unsettled.sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.id.localeCompare(b.id)).slice(0, limit);
  }

  /** The unsettled orders (the sweep's read), and the item purchases a claim moved to `failed` that are still there. */
  async listNeedingAttention(changedBefore: string, limit: number): Promise<Order[]> {
    const unsettled = await this.listUnsettled(changedBefore, 10_000);
    const refused = await this.states.find({ kind: "item_purchase", to: "failed" }).limit(10_000).toArray();
    const docs = await this.orders.find({ _id: { $in: refused.map((c) => c.order) } }).toArray();
    // Reopened ones too (failed → paid), should the write that gave them back to the sweep have been lost.
    const reopened = (o: Order) => (o.state === "pending" || o.state === "paid") && o.updatedAt < changedBefore;
    const seen = new Set(unsettled.map((o) => o.id));
    const failed = (await Promise.all(docs.map((d) => this.toOrder(d)))).filter((o) => o.state === "failed" || (reopened(o) && !seen.has(o.id)));
    return [...unsettled, ...failed].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.id.localeCompare(a.id)).slice(0, limit);
  }

  /** In a state = began in it or entered it, and not left it: three counts, no per-order reads. */
  countByState(): Promise<Array<{ platform: string; kind: OrderKind; state: OrderState; count: number }>> {
    return countOrdersByState(this.orders, this.states);
  }

  close(): Promise<void> {
    return this.onClose();
  }

  /** The order as its claims say: the state chain from the initial state, then the delivery attempts. */
  private async toOrder(doc: OrderDoc): Promise<Order> {
    let state = doc.initialState;
    let updatedAt = doc.createdAt;
    let failure: string | null = null;
    for (let step = 0; step < 5; step++) {
      const left = await this.states.findOne({ _id: `${doc._id}:${state}` });
      if (!left) break;
      state = left.to;
      updatedAt = left.at;
      if (left.failure !== undefined) failure = left.failure;
    }
    let attempts = 0;
    let lease: AttemptClaim | null = null;
    for (;;) {
      const attempt = await this.attempts.findOne({ _id: `${doc._id}:${attempts + 1}` });
      if (!attempt) break;
      attempts += 1;
      lease = attempt;
      if (state === "paid" && attempt.at > updatedAt) updatedAt = attempt.at;
    }
    return {
      id: doc._id,
      platform: doc.platform,
      appId: doc.appId,
      userId: doc.userId,
      openid: doc.openid,
      orderId: doc.orderId,
      kind: doc.kind,
      itemId: doc.itemId,
      coins: doc.coins,
      platformOrderId: doc.platformOrderId,
      env: doc.env,
      state,
      attempts,
      leaseUntil: state === "paid" && lease ? lease.leaseUntil.toISOString() : null,
      failure,
      reason: doc.reason ?? null,
      quantity: doc.quantity ?? null,
      unitPrice: doc.unitPrice ?? null,
      catalogVersion: doc.catalogVersion ?? null,
      liveEvent: doc.liveEvent ?? null,
      createdAt: doc.createdAt.toISOString(),
      updatedAt: updatedAt.toISOString(),
    };
  }
}

