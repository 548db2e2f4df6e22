/**
 * A throw-away MongoDB database per suite, on the server TEST_MONGODB_URL names (FerretDB in CI),
 * so runs never see each other's documents. FerretDB on SQLite keeps each database in a file of
 * its own, so one per suite is cheap.
 */
import crypto from "node:crypto";
import mongoose from "mongoose";

export interface TestMongoDatabase {
  url: string;
  drop(): Promise<void>;
}

export function createTestMongoDatabase(baseUrl: string): TestMongoDatabase {
  const name = `mgl_test_${crypto.randomBytes(6).toString("hex")}`;
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const connection = await mongoose.createConnection(url.toString(), { serverSelectionTimeoutMS: 5000 }).asPromise();
      try {
        await connection.dropDatabase();
      } finally {
        await connection.close();
      }
    },
  };
}
