/**
 * Opens the MongoDB store with the same failure budget as PostgreSQL's pool (postgres-pool.ts): a
 * server that is down or silent fails a request within the connect or query timeout, and
 * unavailable-errors.ts turns that into a 503; the driver keeps probing and heals by itself.
 */
import mongoose from "mongoose";
import { withCallBudgets } from "./call-budget";
import { watchMonitors } from "./monitor-watchdog";
import { MongoUserStore, type MongoUserStoreOptions } from "./mongo-user-store";
import { gateConnection } from "./operation-gate";

/** How often the driver's monitor checks a server when nothing else asks (a request asks sooner). */
const HEARTBEAT_FREQUENCY_MS = 2000;

export interface MongoTimeouts {
  /** Finding a server that answers (and opening a connection to it). */
  connectTimeoutMs: number;
  /** How long a request may wait for a free pooled connection. */
  acquireTimeoutMs: number;
  /** One operation's reply; a silent server costs a request no more than this. */
  queryTimeoutMs: number;
  /** When a creation's claim without its user is taken over as left by a crash (MONGODB_ORPHAN_CLAIM_SEC). */
  orphanClaimMs?: number;
}

/**
 * A request's calls (a login's lookup and creation, an erase) share one query timeout, waiting for
 * a connection included (call-budget.ts, operation-gate.ts); the sweep and the start-up work keep
 * the connection's per-operation timeouts. 20 connections, not PostgreSQL's 10: a late reply holds
 * one for up to a timeout, and MongoDB connections are cheap; with 10, 20 concurrent first logins
 * per process queued behind 10 late writes (docs/stores.md has the figures).
 */
export async function openMongoUserStore(url: string, timeouts: MongoTimeouts, options: MongoUserStoreOptions = {}): Promise<MongoUserStore> {
  const store = new MongoUserStore(await openMongoConnection(url, timeouts, 20), {
    inFlightWaitMs: timeouts.queryTimeoutMs,
    releaseWaitMs: Math.ceil(timeouts.queryTimeoutMs / 8),
    orphanAfterMs: timeouts.orphanClaimMs,
    ...options,
  });
  return withCallBudgets(store, timeouts.queryTimeoutMs, ["migrate", "sweep", "finishInterruptedErases", "close"]);
}

/** A connection with the failure budget above; the order ledger opens one of its own (open-mongo-order-ledger.ts). */
export async function openMongoConnection(url: string, timeouts: MongoTimeouts, maxPoolSize: number): Promise<mongoose.Connection> {
  const connection = mongoose.createConnection(url, {
    // Fail instead of queueing while disconnected: mongoose would otherwise hold a request for
    // bufferTimeoutMS (10 s) waiting for the server to come back.
    bufferCommands: false,
    autoIndex: false,
    autoCreate: false,
    serverSelectionTimeoutMS: timeouts.connectTimeoutMs,
    connectTimeoutMS: timeouts.connectTimeoutMs,
    waitQueueTimeoutMS: timeouts.acquireTimeoutMs,
    socketTimeoutMS: timeouts.queryTimeoutMs,
    heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS,
    maxPoolSize,
    // A read that timed out would be retried once after a new server selection, doubling the wait
    // before the 503 (1.6 s seen in CI); the client retries instead, as with PostgreSQL.
    retryReads: false,
  });
  // A connection error after the first connect is reported by the operation that meets it; without
  // a listener it would reach the process's uncaughtException handler and shut the server down.
  connection.on("error", () => undefined);
  gateConnection(connection, { slots: maxPoolSize, queryTimeoutMs: timeouts.queryTimeoutMs, acquireTimeoutMs: timeouts.acquireTimeoutMs });
  await connection.asPromise();
  // A monitor whose heartbeat hangs would leave the server "Unknown" for good (monitor-watchdog.ts).
  const watchdog = watchMonitors(connection.getClient(), { connectTimeoutMs: timeouts.connectTimeoutMs, heartbeatFrequencyMs: HEARTBEAT_FREQUENCY_MS });
  connection.once("close", () => watchdog.stop());
  return connection;
}
