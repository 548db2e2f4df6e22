/** Opens the MongoDB order ledger on a connection of its own (create-order-ledger.ts). */
import mongoose from "mongoose";
import { MongoOrderLedger } from "./mongo-order-ledger";
import type { MongoTimeouts } from "./open-mongo";

/** A ledger on a connection of its own, with the same failure budget as the user store's (open-mongo.ts). */
export async function openMongoOrderLedger(url: string, timeouts: MongoTimeouts): Promise<MongoOrderLedger> {
  const connection = mongoose.createConnection(url, {
    bufferCommands: false,
    autoIndex: false,
    autoCreate: false,
    serverSelectionTimeoutMS: timeouts.connectTimeoutMs,
    connectTimeoutMS: timeouts.connectTimeoutMs,
    waitQueueTimeoutMS: timeouts.acquireTimeoutMs,
    socketTimeoutMS: timeouts.queryTimeoutMs,
    heartbeatFrequencyMS: 2000,
    maxPoolSize: 5,
  });
  connection.on("error", () => undefined);
  await connection.asPromise();
  const ledger = new MongoOrderLedger(connection, () => connection.close());
  try {
    await ledger.migrate();
  } catch (err) {
    await connection.close().catch(() => undefined);
    throw err;
  }
  return ledger;
}
