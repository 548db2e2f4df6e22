import { AppError } from "../../core/errors";
import type { UserStore } from "../../core/ports/user-store";

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"]);
/** The MongoDB driver's names for "no server answers now" (its errors carry no SQLSTATE-like code). */
const MONGO_UNAVAILABLE = new Set([
  "MongoServerSelectionError",
  "MongooseServerSelectionError",
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoPoolClearedError",
  "MongoWaitQueueTimeoutError",
  "MongoNotConnectedError",
  // The client-side operation timeout (timeoutMS) a MongoDB store's calls run under (call-deadline.ts).
  "MongoOperationTimeoutError",
]);
/**
 * The MongoDB store's own retryable refusals: a user that kept changing under a write, a write
 * whose answer was lost and could not be read back, a claim whose creation is still in flight, a
 * call whose time ran out before its next operation was sent.
 */
const STORE_RETRYABLE = new Set(["STORE_CONTENTION", "STORE_OUTCOME_UNKNOWN", "STORE_CLAIM_IN_FLIGHT", "STORE_DEADLINE"]);
const TRANSIENT_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|database is locked/i;

/**
 * True for failures that mean "the database cannot answer now" rather than "this query is wrong":
 * network errors, PostgreSQL connection exceptions (class 08), shutdown / cannot-connect (57P0x),
 * statement timeouts (57014), SQLite's busy lock, the MongoDB driver's network and server-selection
 * failures, and the MongoDB store's retryable refusals (STORE_RETRYABLE).
 */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | undefined;
  const code = typeof e?.code === "string" ? e.code : "";
  if (NETWORK_CODES.has(code) || code.startsWith("08") || code.startsWith("57P0") || code === "57014") return true;
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || STORE_RETRYABLE.has(code)) return true;
  if (typeof (err as Error)?.name === "string" && MONGO_UNAVAILABLE.has((err as Error).name)) return true;
  return typeof e?.message === "string" && TRANSIENT_MESSAGES.test(e.message);
}

/**
 * Wraps every store call so an unreachable database becomes a 503 `service_unavailable`, not a 500:
 * the user store, and the order ledger on every backend (`what` names it in the message).
 */
export function failFastWhenUnavailable<T extends object = UserStore>(store: T, what = "The user store"): T {
  // One wrapper per method, made on first use (every store call of a request goes through here).
  const wrappers = new Map<PropertyKey, { method: unknown; wrapper: (...args: unknown[]) => Promise<unknown> }>();
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || property === "close") return value;
      const known = wrappers.get(property);
      if (known?.method === value) return known.wrapper;
      const wrapper = async (...args: unknown[]) => {
        try {
          return await value.apply(target, args);
        } catch (err) {
          if (isUnavailable(err)) {
            throw new AppError("service_unavailable", { message: `${what} is unavailable; retry later`, cause: err });
          }
          throw err;
        }
      };
      wrappers.set(property, { method: value, wrapper });
      return wrapper;
    },
  });
}
