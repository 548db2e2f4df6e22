/**
 * The store configurations a contract suite runs over: SQLite always, PostgreSQL and MongoDB
 * (FerretDB) when TEST_DATABASE_URL / TEST_MONGODB_URL name them; each prepare() makes a fresh,
 * empty database and release() drops it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppConfig } from "../../src/config/config";
import { createTestMongoDatabase } from "./mongo";
import { createTestDatabase } from "./postgres";
import { testDatabaseUrl, testMongoUrl } from "./services";

export interface StoreImplementation {
  name: string;
  prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }>;
}

export function storeImplementations(label: string): StoreImplementation[] {
  const list: StoreImplementation[] = [
    {
      name: "SQLite",
      async prepare() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mgl-${label}-`));
        const file = path.join(dir, "data", "users.sqlite");
        return { config: { kind: "sqlite", path: file, synchronous: "NORMAL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
      },
    },
  ];
  const pg = testDatabaseUrl;
  if (pg) {
    list.push({
      name: "PostgreSQL",
      async prepare() {
        const db = await createTestDatabase(pg);
        return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 5000, queryTimeoutMs: 5000 }, release: () => db.drop() };
      },
    });
  }
  const mongo = testMongoUrl;
  if (mongo) {
    list.push({
      name: "MongoDB",
      async prepare() {
        const db = createTestMongoDatabase(mongo);
        return { config: { kind: "mongodb", url: db.url, connectTimeoutMs: 2000, acquireTimeoutMs: 5000, queryTimeoutMs: 10_000 }, release: () => db.drop() };
      },
    });
  }
  return list;
}
