import type { AppConfig } from "../../config/config";

/**
 * For the start-up line and the settings check: which store, never the URL (it may hold a
 * password). Apart from create-user-store.ts so the settings check loads no database driver.
 */
export function describeUserStore(config: AppConfig["store"]): string {
  if (config.kind === "sqlite") return `users in SQLite at ${config.path}`;
  return config.kind === "mongodb" ? "users in MongoDB" : "users in PostgreSQL";
}
