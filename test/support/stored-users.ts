/**
 * The databases a multi-process suite can share, each with raw readers that look at what the
 * store really wrote (rows or documents), bypassing the store: a user as the export names its
 * fields (camelCase, timestamps as ISO text) plus its password hash, and its identities.
 */
import mongoose from "mongoose";
import { Client as PgClient } from "pg";
import { createTestMongoDatabase } from "./mongo";
import { createTestDatabase } from "./postgres";
import { testDatabaseUrl, testMongoUrl } from "./services";

export interface StoredUsers {
  /** Every stored field of the user, or undefined when there is none. */
  user(id: string): Promise<Record<string, unknown> | undefined>;
  /** [platform, platformId] of each identity leading to the user. */
  identities(userId: string): Promise<[string, string][]>;
}

export interface SharedDatabase {
  name: string;
  /** Why it does not run here, when it does not. */
  skipReason?: string;
  create(): Promise<{ url: string; drop(): Promise<void>; stored: StoredUsers }>;
}

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

export const sharedDatabases: SharedDatabase[] = [
  {
    name: "PostgreSQL",
    skipReason: testDatabaseUrl ? undefined : "TEST_DATABASE_URL is not set",
    async create() {
      const db = await createTestDatabase(testDatabaseUrl!);
      const sql = async (text: string, values: unknown[]) => {
        const client = new PgClient({ connectionString: db.url });
        await client.connect();
        try {
          return (await client.query(text, values)).rows as Record<string, unknown>[];
        } finally {
          await client.end();
        }
      };
      const stored: StoredUsers = {
        async user(id) {
          const [row] = await sql("select * from users where id = $1", [id]);
          if (!row) return undefined;
          return Object.fromEntries(Object.entries(row).map(([column, value]) => [column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), iso(value)]));
        },
        async identities(userId) {
          const rows = await sql("select platform, platform_id from user_identities where user_id = $1 order by created_at, platform, platform_id", [userId]);
          return rows.map((r) => [String(r.platform), String(r.platform_id)]);
        },
      };
      return { url: db.url, drop: db.drop, stored };
    },
  },
  {
    name: "MongoDB",
    skipReason: testMongoUrl ? undefined : "TEST_MONGODB_URL is not set",
    async create() {
      const db = createTestMongoDatabase(testMongoUrl!);
      const read = async <T>(fn: (c: mongoose.Connection) => Promise<T>) => {
        const connection = await mongoose.createConnection(db.url, { serverSelectionTimeoutMS: 5000 }).asPromise();
        try {
          return await fn(connection);
        } finally {
          await connection.close();
        }
      };
      const stored: StoredUsers = {
        async user(id) {
          const doc = await read((c) => c.collection<{ _id: string }>("users").findOne({ _id: id }));
          if (!doc) return undefined;
          // The store's own bookkeeping (claim keys, delete marker) is not user data.
          const { _id, usernameNorm: _u, emailNorm: _e, deletingAt: _d, ...fields } = doc as Record<string, unknown>;
          return { id: _id, ...Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, iso(value)])) };
        },
        async identities(userId) {
          const docs = await read((c) => c.collection("user_identities").find({ userId }).sort({ createdAt: 1, platform: 1, platformId: 1 }).toArray());
          return docs.map((d) => [String(d.platform), String(d.platformId)]);
        },
      };
      return { url: db.url, drop: db.drop, stored };
    },
  },
];
