/**
 * Which real backing services the tests may use. The embedded backends always run; PostgreSQL and
 * Redis suites run when TEST_DATABASE_URL / TEST_REDIS_URL are set, MongoDB ones when TEST_MONGODB_URL
 * is (`.ci/run` sets all three). Test code reads these variables here only, so the app's config stays the one env reader.
 */
import crypto from "node:crypto";
import { declareBackend } from "./backend-report";

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const testRedisUrl = process.env.TEST_REDIS_URL || undefined;
/** A MongoDB server (FerretDB in CI: scripts/test-services.sh starts one on 127.0.0.1:27017). */
export const testMongoUrl = process.env.TEST_MONGODB_URL || undefined;

declareBackend({ name: "SQLite", titles: /SQLite/ });
declareBackend({ name: "in-memory cache", titles: /memory|MemoryCache/i });
declareBackend({ name: "PostgreSQL", titles: /PostgreSQL/, skipReason: testDatabaseUrl ? undefined : "TEST_DATABASE_URL is not set" });
declareBackend({ name: "MongoDB", titles: /MongoDB/, skipReason: testMongoUrl ? undefined : "TEST_MONGODB_URL is not set" });
declareBackend({ name: "Redis", titles: /Redis/, skipReason: testRedisUrl ? undefined : "TEST_REDIS_URL is not set" });

/** A key prefix unique to this test run, so parallel runs never collide in a shared Redis. */
export function uniquePrefix(label: string): string {
  return `test:${label}:${crypto.randomBytes(4).toString("hex")}:`;
}
