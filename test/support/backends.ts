/**
 * The backend matrix for end-to-end suites: the embedded defaults always; PostgreSQL + Redis
 * when the CI variables name them. Each PostgreSQL run gets its own database, each Redis run
 * its own key prefix.
 */
import { createTestDatabase } from "./postgres";
import { testDatabaseUrl, testRedisUrl, uniquePrefix } from "./services";

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
