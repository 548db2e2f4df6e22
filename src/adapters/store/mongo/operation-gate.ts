/**
 * Sends a MongoDB store's operations within their call's budget (call-budget.ts), and lets them
 * into the connection pool one per free connection, so that an operation still waiting is known
 * for certain never to have been sent.
 *
 * Each operation is sent with what its call has left of DATABASE_QUERY_TIMEOUT_MS as the driver's
 * client-side operation timeout (`timeoutMS`), but never less than a quarter of it: a call that
 * waited long for a connection while the database answers still gets that for each reply, so a
 * burst is served rather than refused. When replies are late, a late write used to hold its
 * connection for a full timeout and each request queued behind it then spent a full timeout of its
 * own (20 concurrent first logins on a pool of 10 answered after up to 1.7 s on one process, 2.6 s
 * over HTTP); now each such request gives up when its own budget is spent.
 *
 * While the database answers, an operation may wait up to DATABASE_POOL_ACQUIRE_TIMEOUT_MS for a
 * connection. Once it fails (FAILING_AFTER operations unanswered within FAILING_FOR query timeouts:
 * no reply within a full timeout, the connection lost, no server to choose), an
 * operation whose call has less than that quarter left is refused with StoreDeadlineError before
 * it is sent, whether it was about to start or already waiting.
 *
 * Only operations made inside a store call pass the gate (underCallBudget); the sweep and start-up
 * work keep the connection's own timeouts (open-mongo.ts).
 */
import { performance } from "node:perf_hooks";
import type { Connection, mongo } from "mongoose";
import { currentBudget, StoreDeadlineError, type Budget } from "./call-budget";

/** How many query timeouts an unanswered operation counts for. */
const FAILING_FOR = 3;
/** How many unanswered operations within that make the database failing: one late reply is a slow query. */
const FAILING_AFTER = 2;
/**
 * The least part of a query timeout worth sending an operation with while the database fails: one
 * sent with a few milliseconds left would only be lost, its outcome unknown, its claims held for 30 s.
 */
const LEAST_SENT_WITH = 1 / 4;

export interface GateTimings {
  /** The connection's pool size. */
  slots: number;
  queryTimeoutMs: number;
  acquireTimeoutMs: number;
}

interface Waiter {
  budget: Budget;
  what: string;
  until: number;
  admit(): void;
  refuse(err: Error): void;
  timer?: NodeJS.Timeout;
}

/** The driver's errors for an operation the database did not answer (as opposed to answered with an error). */
const UNANSWERED = new Set([
  "MongoOperationTimeoutError",
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoServerSelectionError",
  "MongoPoolClearedError",
  "MongoWaitQueueTimeoutError",
  "MongoNotConnectedError",
]);

export class OperationGate {
  private free: number;
  private readonly waiters: Waiter[] = [];
  /** When operations went unanswered, the last FAILING_FOR query timeouts. */
  private unanswered: number[] = [];

  constructor(private readonly timings: GateTimings) {
    this.free = timings.slots;
  }

  /** Whether FAILING_AFTER operations went unanswered in the last FAILING_FOR query timeouts. */
  failing(now = performance.now()): boolean {
    const since = now - FAILING_FOR * this.timings.queryTimeoutMs;
    if (this.unanswered.length > 0 && this.unanswered[0] <= since) this.unanswered = this.unanswered.filter((at) => at > since);
    return this.unanswered.length >= FAILING_AFTER;
  }

  /** Runs one operation of a call: admitted, then sent with the timeout `send` is given. */
  async run<R>(budget: Budget, what: string, send: (timeoutMs: number) => Promise<R>): Promise<R> {
    await this.admit(budget, what);
    let timeoutMs = 0;
    try {
      timeoutMs = this.timeoutFor(budget, what);
      return await send(timeoutMs);
    } catch (err) {
      // A reply missed within a timeout shortened to the call's budget says little about the database:
      // on FerretDB's SQLite handler a burst of 200 creations counted a few and refused all the rest.
      const name = (err as Error)?.name;
      if (UNANSWERED.has(name) && (name !== "MongoOperationTimeoutError" || timeoutMs >= this.timings.queryTimeoutMs)) this.wentUnanswered();
      throw err;
    } finally {
      this.release();
    }
  }

  /** The timeout an operation of this call is sent with now; StoreDeadlineError if it may not be sent. */
  timeoutFor(budget: Budget, what: string): number {
    const now = performance.now();
    const left = budget.remaining(now);
    const least = this.timings.queryTimeoutMs * LEAST_SENT_WITH;
    if (left < least && this.failing(now)) throw new StoreDeadlineError(what);
    return Math.floor(Math.min(this.timings.queryTimeoutMs, Math.max(left, least)));
  }

  private spent(left: number): boolean {
    return left < this.timings.queryTimeoutMs * LEAST_SENT_WITH;
  }

  private admit(budget: Budget, what: string): Promise<void> | void {
    if (this.free > 0 && this.waiters.length === 0) {
      this.free--;
      return;
    }
    return new Promise<void>((admit, refuse) => {
      const waiter: Waiter = { budget, what, until: performance.now() + this.timings.acquireTimeoutMs, admit, refuse };
      this.waiters.push(waiter);
      this.watch(waiter);
    });
  }

  /** Refuses the waiter once it has waited too long: when its call's budget is spent while failing, or at the acquire timeout. */
  private watch(waiter: Waiter): void {
    const now = performance.now();
    const left = waiter.budget.remaining(now);
    if (now >= waiter.until || (this.spent(left) && this.failing(now))) {
      this.drop(waiter);
      waiter.refuse(new StoreDeadlineError(`${waiter.what} (no free connection)`));
      return;
    }
    const spentAt = now + left - this.timings.queryTimeoutMs * LEAST_SENT_WITH;
    const next = spentAt > now ? Math.min(waiter.until, spentAt) : waiter.until;
    waiter.timer = setTimeout(() => this.watch(waiter), Math.max(1, Math.ceil(next - now)));
  }

  private drop(waiter: Waiter): void {
    clearTimeout(waiter.timer);
    const i = this.waiters.indexOf(waiter);
    if (i >= 0) this.waiters.splice(i, 1);
  }

  /** An operation went unanswered: if the database is failing now, waiters whose calls have spent their budget are refused. */
  private wentUnanswered(): void {
    this.unanswered.push(performance.now());
    if (!this.failing()) return;
    for (const waiter of [...this.waiters]) {
      clearTimeout(waiter.timer);
      this.watch(waiter);
    }
  }

  private release(): void {
    for (let waiter = this.waiters.shift(); waiter; waiter = this.waiters.shift()) {
      clearTimeout(waiter.timer);
      const now = performance.now();
      if (this.failing(now) && this.spent(waiter.budget.remaining(now))) {
        waiter.refuse(new StoreDeadlineError(`${waiter.what} (no time left)`));
        continue;
      }
      waiter.admit();
      return;
    }
    this.free++;
  }
}

const gates = new WeakMap<Connection, OperationGate>();

/** Puts a gate in front of `connection`'s pool for the store calls that use it (underCallBudget). */
export function gateConnection(connection: Connection, timings: GateTimings): void {
  gates.set(connection, new OperationGate(timings));
}

/** Where each operation method takes its options (the driver's signatures). */
const OPTIONS_AT: Partial<Record<string, number>> = {
  insertOne: 1,
  insertMany: 1,
  bulkWrite: 1,
  findOne: 1,
  deleteOne: 1,
  deleteMany: 1,
  countDocuments: 1,
  findOneAndDelete: 1,
  replaceOne: 2,
  updateOne: 2,
  updateMany: 2,
  findOneAndUpdate: 2,
  findOneAndReplace: 2,
};
/** Methods that return a cursor: they get the timeout, but read later, so they do not pass the gate. */
const CURSOR_OPTIONS_AT: Partial<Record<string, number>> = { find: 1, aggregate: 1 };

/**
 * `collection`, whose operations inside a store call pass the gate of `connection` and are sent
 * with the timeout it gives; outside any call (or on a connection without a gate), `collection` itself.
 */
export function underCallBudget<T extends mongo.Document>(collection: mongo.Collection<T>, connection: Connection): mongo.Collection<T> {
  return new Proxy(collection, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as ((...args: unknown[]) => unknown) | unknown;
      const budget = currentBudget();
      const gate = gates.get(connection);
      if (typeof value !== "function" || typeof property !== "string" || !budget || !gate) return value;
      const what = `${property} on ${target.collectionName}`;
      const at = OPTIONS_AT[property];
      if (at !== undefined) return (...args: unknown[]) => gate.run(budget, what, async (timeoutMS) => value.apply(target, withOption(args, at, timeoutMS)));
      const cursorAt = CURSOR_OPTIONS_AT[property];
      if (cursorAt !== undefined) return (...args: unknown[]) => value.apply(target, withOption(args, cursorAt, gate.timeoutFor(budget, what)));
      return value;
    },
  });
}

function withOption(args: unknown[], at: number, timeoutMS: number): unknown[] {
  const copy = [...args];
  while (copy.length <= at) copy.push(undefined);
  copy[at] = { ...(copy[at] as object | undefined), timeoutMS };
  return copy;
}
