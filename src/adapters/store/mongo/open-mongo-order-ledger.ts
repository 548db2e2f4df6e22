/** Opens the MongoDB order ledger on a connection of its own (create-order-ledger.ts). */
import { MongoOrderLedger } from "./mongo-order-ledger";
import { openMongoConnection, type MongoTimeouts } from "./open-mongo";

/** A ledger on a connection of its own, with the same failure budget as the user store's (open-mongo.ts). */
export async function openMongoOrderLedger(url: string, timeouts: MongoTimeouts): Promise<MongoOrderLedger> {
  const connection = await openMongoConnection(url, timeouts, 5);
  const ledger = new MongoOrderLedger(connection, () => connection.close());
  try {
    await ledger.migrate();
  } catch (err) {
    await connection.close().catch(() => undefined);
    throw err;
  }
  return ledger;
}
