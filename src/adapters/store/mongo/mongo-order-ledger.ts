/**
 * The OrderLedger on MongoDB, race-free on FerretDB 1.x too, whose updates are read-modify-write
 * and whose only race-free write is an insert into `_id` (../shared ferretdb notes; mongo-models.ts).
 * So nothing that decides a step is ever updated; every step is an insert-only claim:
 *
 *   orders          the order's fixed facts; `_id` = our order id
 *   order_keys      `_id` = "<userId>:<orderId>" → the order id (a user's orderId is unique)
 *   order_numbers   `_id` = "<platform>:<appId>:<platformOrderId>" → the order id (a platform number is unique)
 *   order_states    `_id` = "<order id>:<state left>": the order left that state for `to`. States never
 *                   recur (pending → paid → delivered → refunded, pending → failed, paid → refunded), so
 *                   one claim per state left lets exactly one transition out of each state win.
 *   order_attempts  `_id` = "<order id>:<n>": delivery attempt n, with its lease.
 *
 * The current state is the chain of claims from the initial state; reads are point reads by `_id`
 * (FerretDB's SQLite backend pushes no other filter down). `settled` on the order is a hint for the
 * reconciler's sweep, only ever set to true, so a lost or repeated write of it changes no outcome.
 */
import type { Collection, Connection } from "mongoose";
import type { CreateOrderResult, NewOrder, Order, OrderKind, OrderLedger, OrderListQuery, OrderState, StateChange } from "../../../core/ports/order-ledger";
import { isDuplicateKey } from "./claims";

interface OrderDoc {
  /** Our order id (UUID). */
  _id: string;
  platform: string;
  appId: string;
  userId: string;
  openid: string;
  orderId: string;
  kind: OrderKind;
  itemId: string;
  coins: number;
  platformOrderId: string;
  env: 0 | 1;
  /** An operator grant's reason; absent otherwise. */
  reason?: string;
  initialState: OrderState;
  createdAt: Date;
  settled?: boolean;
}
/** A uniqueness claim: the key belongs to order `id`. */
interface KeyClaim {
  _id: string;
  id: string;
  at: Date;
}
interface StateClaim {
  _id: string;
  order: string;
  platform: string;
  kind: OrderKind;
  from: OrderState;
  to: OrderState;
  at: Date;
  failure?: string | null;
}
interface AttemptClaim {
  _id: string;
  order: string;
  leaseUntil: Date;
  at: Date;
}

/** A key claim whose order never appeared after this long was left by a crash mid-creation. */
const ORPHAN_AFTER_MS = 30_000;
const IN_FLIGHT_WAIT_MS = 2_000;
const TERMINAL: ReadonlySet<OrderState> = new Set(["delivered", "failed", "refunded"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const part = (s: string) => encodeURIComponent(s);

export class MongoOrderLedger implements OrderLedger {
  private readonly orders: Collection<OrderDoc>;
  private readonly keys: Collection<KeyClaim>;
  private readonly numbers: Collection<KeyClaim>;
  private readonly states: Collection<StateClaim>;
  private readonly attempts: Collection<AttemptClaim>;

  constructor(
    connection: Connection,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {
    this.orders = connection.collection<OrderDoc>("orders");
    this.keys = connection.collection<KeyClaim>("order_keys");
    this.numbers = connection.collection<KeyClaim>("order_numbers");
    this.states = connection.collection<StateClaim>("order_states");
    this.attempts = connection.collection<AttemptClaim>("order_attempts");
  }

  async migrate(): Promise<void> {
    // Plain (non-unique) indexes only: uniqueness is the claims' `_id`.
    await this.orders.createIndex({ userId: 1, createdAt: -1 });
    await this.orders.createIndex({ settled: 1 });
  }

  async create(order: NewOrder): Promise<CreateOrderResult> {
    const key = `${part(order.userId)}:${part(order.orderId)}`;
    const numberKey = `${part(order.platform)}:${part(order.appId)}:${part(order.platformOrderId)}`;
    for (;;) {
      const existing = await this.heldBy(this.keys, key);
      if (existing) return { order: existing, created: false };
      if (!(await this.claim(this.keys, key, order.id))) continue;
      if (!(await this.claim(this.numbers, numberKey, order.id))) {
        await this.keys.deleteOne({ _id: key, id: order.id });
        const holder = await this.heldBy(this.numbers, numberKey);
        if (holder) return { order: holder, created: false };
        continue;
      }
      const doc: OrderDoc = {
        _id: order.id,
        platform: order.platform,
        appId: order.appId,
        userId: order.userId,
        openid: order.openid,
        orderId: order.orderId,
        kind: order.kind,
        itemId: order.itemId,
        coins: order.coins,
        platformOrderId: order.platformOrderId,
        env: order.env,
        ...(order.reason !== undefined ? { reason: order.reason } : {}),
        initialState: order.state ?? "pending",
        createdAt: new Date(order.createdAt),
      };
      await this.orders.insertOne(doc);
      return { order: await this.toOrder(doc), created: true };
    }
  }

  /** Inserts a claim for order `id`; false when the key is already claimed. */
  private async claim(collection: Collection<KeyClaim>, key: string, id: string): Promise<boolean> {
    try {
      await collection.insertOne({ _id: key, id, at: new Date() });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /**
   * The order a claim points at, waiting for one still being created; null when there is no claim,
   * or after removing one a crashed creation left (no order after ORPHAN_AFTER_MS).
   */
  private async heldBy(collection: Collection<KeyClaim>, key: string): Promise<Order | null> {
    const waitUntil = Date.now() + IN_FLIGHT_WAIT_MS;
    for (;;) {
      const claim = await collection.findOne({ _id: key });
      if (!claim) return null;
      const doc = await this.orders.findOne({ _id: claim.id });
      if (doc) return this.toOrder(doc);
      // The wall clock: this is about a crash, not about orders' times.
      if (Date.now() - claim.at.getTime() >= ORPHAN_AFTER_MS) {
        await collection.deleteOne({ _id: key, id: claim.id });
        return null;
      }
      if (Date.now() >= waitUntil) throw new Error("an order with this key is still being created");
      await sleep(20);
    }
  }

  async findById(id: string): Promise<Order | null> {
    const doc = await this.orders.findOne({ _id: id });
    return doc ? this.toOrder(doc) : null;
  }

  findByOrderId(userId: string, orderId: string): Promise<Order | null> {
    return this.byClaim(this.keys, `${part(userId)}:${part(orderId)}`);
  }

  findByPlatformOrderId(platform: string, appId: string, platformOrderId: string): Promise<Order | null> {
    return this.byClaim(this.numbers, `${part(platform)}:${part(appId)}:${part(platformOrderId)}`);
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
    try {
      await this.states.insertOne({ _id: `${id}:${from}`, order: id, platform: doc.platform, kind: doc.kind, from, to, at: new Date(change.at), ...(change.failure !== undefined ? { failure: change.failure } : {}) });
    } catch (err) {
      if (isDuplicateKey(err)) return null;
      throw err;
    }
    if (TERMINAL.has(to)) await this.orders.updateOne({ _id: doc._id }, { $set: { settled: true } });
    return this.toOrder(doc);
  }

  async claimDelivery(id: string, expectedAttempts: number, now: string, leaseUntil: string): Promise<Order | null> {
    const doc = await this.orders.findOne({ _id: id });
    if (!doc) return null;
    const current = await this.toOrder(doc);
    if (current.state !== "paid" || current.attempts !== expectedAttempts) return null;
    if (current.leaseUntil !== null && current.leaseUntil > now) return null;
    try {
      await this.attempts.insertOne({ _id: `${id}:${expectedAttempts + 1}`, order: id, leaseUntil: new Date(leaseUntil), at: new Date(now) });
    } catch (err) {
      if (isDuplicateKey(err)) return null;
      throw err;
    }
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

  /** In a state = began in it or entered it, and not left it: three counts, no per-order reads. */
  async countByState(): Promise<Array<{ platform: string; kind: OrderKind; state: OrderState; count: number }>> {
    const counts = new Map<string, number>();
    const add = (platform: string, kind: string, state: string, n: number) => {
      const k = `${platform}\0${kind}\0${state}`;
      counts.set(k, (counts.get(k) ?? 0) + n);
    };
    type Group = { _id: { platform: string; kind: string; state: string }; n: number };
    const began = await this.orders.aggregate<Group>([{ $group: { _id: { platform: "$platform", kind: "$kind", state: "$initialState" }, n: { $sum: 1 } } }]).toArray();
    const entered = await this.states.aggregate<Group>([{ $group: { _id: { platform: "$platform", kind: "$kind", state: "$to" }, n: { $sum: 1 } } }]).toArray();
    const left = await this.states.aggregate<Group>([{ $group: { _id: { platform: "$platform", kind: "$kind", state: "$from" }, n: { $sum: 1 } } }]).toArray();
    for (const g of [...began, ...entered]) add(g._id.platform, g._id.kind, g._id.state, g.n);
    for (const g of left) add(g._id.platform, g._id.kind, g._id.state, -g.n);
    return [...counts]
      .filter(([, n]) => n > 0)
      .map(([k, count]) => {
        const [platform, kind, state] = k.split("\0");
        return { platform, kind: kind as OrderKind, state: state as OrderState, count };
      });
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
      createdAt: doc.createdAt.toISOString(),
      updatedAt: updatedAt.toISOString(),
    };
  }
}
