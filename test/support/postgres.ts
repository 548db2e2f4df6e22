/**
 * A throw-away PostgreSQL database per suite, on the server TEST_DATABASE_URL names, so runs never
 * see each other's rows or schema.
 */
import crypto from "node:crypto";
import { Client } from "pg";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(baseUrl: string): Promise<TestDatabase> {
  const name = `mgl_test_${crypto.randomBytes(6).toString("hex")}`;
  await asAdmin(baseUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // FORCE ends sessions a test left open (a pool not yet closed), which would block the drop.
    drop: () => asAdmin(baseUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  };
}

async function asAdmin(baseUrl: string, fn: (client: Client) => Promise<unknown>): Promise<void> {
  const client = new Client({ connectionString: baseUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}
