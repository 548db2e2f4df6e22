/**
 * The backend matrix for end-to-end suites: the embedded defaults always; PostgreSQL + Redis
 * when the CI variables name them; MongoDB + Redis too for the suites in `storeBackends`. Each PostgreSQL run gets its own database, each Redis run
 * its own key prefix.
 */
import { createTestDatabase } from "./postgres";
import { createTestMongoDatabase } from "./mongo";
import { testDatabaseUrl, testMongoUrl, testRedisUrl, uniquePrefix } from "./services";

export interface Backend {
  name: string;
  /** Env for the app; call inside `before`, call `release` in `after`. */
  prepare(): Promise<{ env: Record<string, string>; release(): Promise<void> }>;
}

export const backends: Backend[] = [
  { name: "embedded (SQLite + memory)", prepare: async () => ({ env: {}, release: async () => undefined }) },
];

const databaseUrl = testDatabaseUrl;
const redisUrl = testRedisUrl;
if (databaseUrl && redisUrl) {
  backends.push({
    name: "PostgreSQL + Redis",
    prepare: async () => {
      const db = await createTestDatabase(databaseUrl);
      return {
        env: { DATABASE_URL: db.url, REDIS_URL: redisUrl, CACHE_KEY_PREFIX: uniquePrefix("e2e") },
        release: () => db.drop(),
      };
    },
  });
}

/**
 * The login, session and room suites also run on the MongoDB store: what a store must pass end to
 * end (the other suites exercise no store behaviour the contract suite does not already cover).
 */
export const storeBackends: Backend[] = [...backends];
const mongoUrl = testMongoUrl;
if (mongoUrl && redisUrl) {
  storeBackends.push({
    name: "MongoDB + Redis",
    prepare: async () => {
      const db = createTestMongoDatabase(mongoUrl);
      return {
        env: { DATABASE_URL: db.url, REDIS_URL: redisUrl, CACHE_KEY_PREFIX: uniquePrefix("e2e") },
        release: () => db.drop(),
      };
    },
  });
}
