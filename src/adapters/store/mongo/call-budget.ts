/**
 * The time a call of a MongoDB store may spend: DATABASE_QUERY_TIMEOUT_MS for all of one request's
 * calls of one store together, waiting for a connection included; operation-gate.ts sends each
 * operation with what is left. A request's calls share it (shareStoreBudgets) so that a login that
 * looked the player up and then creates them has what the lookup left, and answers within one
 * timeout during an outage, not two; time between calls (a platform's answer, the cache) does not
 * count.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";

/** What the current call may still spend, on performance.now()'s clock. */
export interface Budget {
  remaining(now: number): number;
}

const budgets = new AsyncLocalStorage<Budget>();

/** The budget of the store call in progress; undefined outside any call (the sweep, start-up). */
export function currentBudget(): Budget | undefined {
  return budgets.getStore();
}

/** An operation was not sent, its call's time being spent: nothing was written; a retryable 503. */
export class StoreDeadlineError extends Error {
  /** A code isUnavailable() knows. */
  readonly code = "STORE_DEADLINE";
  constructor(what: string) {
    super(`no time left for ${what}; retry`);
    this.name = "StoreDeadlineError";
  }
}

/** The time one request has spent inside one store: the union of its calls' intervals. */
class TimeInside {
  private spentMs = 0;
  private inFlight = 0;
  private busySince = 0;
  spent(now: number): number {
    return this.spentMs + (this.inFlight > 0 ? now - this.busySince : 0);
  }
  enter(now: number): void {
    if (this.inFlight++ === 0) this.busySince = now;
  }
  leave(now: number): void {
    if (--this.inFlight === 0) this.spentMs += now - this.busySince;
  }
}

interface RequestScope {
  /** False once the request is answered: whatever it left running (a timer, a room) calls as if alone. */
  isOpen(): boolean;
  stores: WeakMap<object, TimeInside>;
}

const requests = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (an HTTP request) so that its calls of each store share that store's one budget. */
export function shareStoreBudgets<R>(isOpen: () => boolean, work: () => R): R {
  return requests.run({ isOpen, stores: new WeakMap() }, work);
}

/**
 * Runs each method of `store` with a budget of `budgetMs`, less what the request it serves has
 * already spent in `store`; a call made inside another keeps the smaller. `exempt` names background
 * work that keeps the connection's own timeouts, such as a sweep that reads whole collections.
 */
export function withCallBudgets<T extends object>(store: T, budgetMs: number, exempt: readonly (keyof T)[] = []): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || exempt.includes(property as keyof T)) return value;
      return (...args: unknown[]) => {
        const time = timeInside(target);
        const start = performance.now();
        const own: Budget = time ? { remaining: (now) => budgetMs - time.spent(now) } : { remaining: (now) => start + budgetMs - now };
        time?.enter(start);
        const result: unknown = budgets.run(within(own, budgets.getStore()), () => value.apply(target, args));
        if (!time) return result;
        const leave = () => time.leave(performance.now());
        if (result instanceof Promise) result.then(leave, leave);
        else leave();
        return result;
      };
    },
  });
}

/** Runs `work` outside the current call's budget, with the connection's own timeouts (cleanup that must not be refused). */
export function withoutBudget<R>(work: () => R): R {
  return budgets.exit(work);
}

function within(own: Budget, outer: Budget | undefined): Budget {
  return outer ? { remaining: (now) => Math.min(own.remaining(now), outer.remaining(now)) } : own;
}

function timeInside(store: object): TimeInside | undefined {
  const request = requests.getStore();
  if (!request?.isOpen()) return undefined;
  let time = request.stores.get(store);
  if (!time) request.stores.set(store, (time = new TimeInside()));
  return time;
}
