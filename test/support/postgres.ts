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
    drop: () =>
      asAdmin(baseUrl, async (client) => {
        // A closed pool's connections may still be closing (pg-pool's end() does not wait for them):
        // killed now, their clients reject an end() nobody awaits, an uncaught error in whichever
        // suite runs next. Let them go by themselves first; FORCE then ends what a test left open.
        for (let waited = 0; waited < 2000; waited += 20) {
          const { rows } = await client.query("select count(*)::int as n from pg_stat_activity where datname = $1", [name]);
          if (rows[0].n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }),
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
