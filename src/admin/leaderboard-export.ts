import { createLeaderboardStore } from "../adapters/store/create-leaderboard-store";
import { sharedSqliteConnection } from "../adapters/store/create-user-store";
import type { AppConfig } from "../config/config";

/** The player's records on every board of every app, for `export` (the data-access right). */
export async function exportLeaderboards(config: AppConfig, userId: string): Promise<Array<{ app: string; board: string; period: number; score: number; subscore: number; name: string; updatedAt: string; metadata: Record<string, unknown> | null }>> {
  const store = await createLeaderboardStore(config.store, config.store.kind === "sqlite" ? { sqlite: sharedSqliteConnection(config.store.path) } : {});
  try {
    const out = [];
    for (const { key: app } of config.apps) {
      for (const { board, seq, record } of await store.recordsOf(app, userId)) {
        out.push({ app, board, period: seq, score: record.score, subscore: record.subscore, name: record.name, updatedAt: new Date(record.updatedAt).toISOString(), metadata: record.metadata });
      }
    }
    return out;
  } finally {
    await store.close();
  }
}
