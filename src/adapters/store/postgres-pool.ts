/**
 * The PostgreSQL connection pool, built so that a database that drops connections or goes silent
 * makes requests fail fast (and become 503 through unavailable-errors.ts) instead of crashing the
 * process or holding requests open, and so that the pool heals by itself afterwards.
 */
import type { PostgresPool, PostgresPoolClient } from "kysely";
import { Pool, type PoolClient } from "pg";

export interface PostgresTimeouts {
  /** Opening a connection, and waiting for a free pooled one when all are busy. */
  connectTimeoutMs: number;
  /** One statement: cancelled by the server after this, abandoned by the client a little later. */
  queryTimeoutMs: number;
}

/** The server cancels first when it can, so the connection normally stays usable. */
const CLIENT_TIMEOUT_MARGIN_MS = 250;
const READ_TIMEOUT_MESSAGE = "Query read timeout";

const ignore = () => undefined;

export function createPostgresPool(url: string, timeouts: PostgresTimeouts, max = 10): PostgresPool {
  const pool = new Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    statement_timeout: timeouts.queryTimeoutMs,
    // Client-side backstop for a silent network, where the server's cancel never arrives.
    query_timeout: timeouts.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection emits "error" on the pool.
  pool.on("error", ignore);
  // pg-pool removes its own "error" listener while a client is checked out, so a connection reset
  // between two statements of a transaction (or next to the failing query) would otherwise reach
  // the process's uncaughtException handler, which shuts the server down. The statement in flight
  // or the next one fails by itself and is answered 503; the dead client is not queryable any
  // more, so the pool drops it on release.
  pool.on("connect", (client) => client.on("error", ignore));
  return {
    connect: async () => discardAfterReadTimeout(await pool.connect()),
    end: () => pool.end(),
  };
}

/**
 * After a client-side read timeout the statement is still on the wire and its answer may arrive
 * later (or never, on a dead network), so the connection must not be reused: Kysely releases
 * without telling the pool anything, so the wrapper passes the failure along and the pool closes
 * that connection instead of handing it out again.
 */
function discardAfterReadTimeout(client: PoolClient): PostgresPoolClient {
  let readTimeout: Error | undefined;
  const query = (...args: unknown[]) => {
    const result = (client.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      result.catch((err: unknown) => {
        if (err instanceof Error && err.message === READ_TIMEOUT_MESSAGE) readTimeout = err;
      });
    }
    return result;
  };
  return {
    query: query as PostgresPoolClient["query"],
    release: () => client.release(readTimeout),
  };
}
