/**
 * The PostgreSQL connection pool, built so that a database that drops connections or goes silent
 * makes requests fail fast (and become 503 through unavailable-errors.ts) instead of crashing the
 * process or holding requests open, and so that the pool heals by itself afterwards.
 */
import type { PostgresPool, PostgresPoolClient } from "kysely";
import { DatabaseError, Pool, type PoolClient } from "pg";

export interface PostgresTimeouts {
  /** Opening a connection; also how long a request waits for a free one while the database fails. */
  connectTimeoutMs: number;
  /** How long a request waits for a free pooled connection while the database answers (a burst). */
  acquireTimeoutMs: number;
  /** One statement: abandoned by the client after this, cancelled by the server a little earlier. */
  queryTimeoutMs: number;
}

/**
 * The server cancels first when it can, so the connection normally stays usable; the client's
 * limit is the setting itself, so a silent database (packets dropped, the cancel never arrives)
 * costs a request no more than DATABASE_QUERY_TIMEOUT_MS.
 */
const SERVER_CANCEL_MARGIN_MS = 150;
const READ_TIMEOUT_MESSAGE = "Query read timeout";
/** pg-pool's error when no pooled connection became free in time (not a failed connect). */
const QUEUE_TIMEOUT_MESSAGE = "timeout exceeded when trying to connect";

const ignore = () => undefined;

/**
 * Whether the database failed since it last answered: a failed connect, a connection reset, a
 * read timeout. A request waiting for a pooled connection gives up after connectTimeoutMs while
 * it fails, but keeps waiting up to acquireTimeoutMs while it answers, so a burst of requests is
 * queued rather than answered 503 by a healthy database.
 */
class Health {
  private failing = false;
  failed = (): void => {
    this.failing = true;
  };
  answered = (): void => {
    this.failing = false;
  };
  get ok(): boolean {
    return !this.failing;
  }
}

export function createPostgresPool(url: string, timeouts: PostgresTimeouts, max = 10): PostgresPool {
  const health = new Health();
  const pool = new Pool({
    connectionString: url,
    max,
    // Both the connect and each wait in pg-pool's queue; a longer wait is a repeated one (acquire).
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    statement_timeout: Math.max(timeouts.queryTimeoutMs - SERVER_CANCEL_MARGIN_MS, Math.ceil(timeouts.queryTimeoutMs / 2)),
    // Client-side backstop for a silent network, where the server's cancel never arrives.
    query_timeout: timeouts.queryTimeoutMs,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection emits "error" on the pool.
  pool.on("error", ignore);
  // pg-pool removes its own "error" listener while a client is checked out, so a connection reset
  // between two statements of a transaction (or next to the failing query) would otherwise reach
  // the process's uncaughtException handler, which shuts the server down. The statement in flight
  // or the next one fails by itself and is answered 503; the dead client is not queryable any
  // more, so the pool drops it on release. The listener only records the failure.
  pool.on("connect", (client) => client.on("error", health.failed));
  const acquire = async (): Promise<PoolClient> => {
    const deadline = Date.now() + timeouts.acquireTimeoutMs;
    for (;;) {
      try {
        return await pool.connect();
      } catch (err) {
        const queued = err instanceof Error && err.message === QUEUE_TIMEOUT_MESSAGE;
        if (!queued) health.failed();
        if (!queued || !health.ok || Date.now() >= deadline) throw err;
      }
    }
  };
  return {
    connect: async () => trackHealth(await acquire(), health),
    end: () => pool.end(),
  };
}

/**
 * Records answers and read timeouts. After a client-side read timeout the statement is still on
 * the wire and its answer may arrive later (or never, on a dead network), so the connection must
 * not be reused: Kysely releases without telling the pool anything, so the wrapper passes the
 * failure along and the pool closes that connection instead of handing it out again.
 */
function trackHealth(client: PoolClient, health: Health): PostgresPoolClient {
  let readTimeout: Error | undefined;
  const query = (...args: unknown[]) => {
    // The connection is already known to be unusable: a ROLLBACK (Kysely sends one when a
    // transaction's statement fails) would otherwise wait out a second statement timeout.
    if (readTimeout) return Promise.reject(readTimeout);
    const result = (client.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      result.then(health.answered, (err: unknown) => {
        // An error reply (a constraint, a cancelled statement) is the database answering.
        if (err instanceof DatabaseError) health.answered();
        if (!(err instanceof Error && err.message === READ_TIMEOUT_MESSAGE)) return;
        readTimeout = err;
        health.failed();
      });
    }
    return result;
  };
  return {
    query: query as PostgresPoolClient["query"],
    release: () => client.release(readTimeout),
  };
}
