/**
 * `--statistics <file>` of `npm run import -- leancloud`: LeanCloud leaderboard statistics (REST
 * answers saved as JSON Lines or JSON) become records of this server's boards, after the players
 * are imported. Submitted as `best`, so running it again changes nothing.
 */
import type { AppConfig } from "../config/config";
import type { UserStore } from "../core/ports/user-store";
import type { Logger } from "../logging/logger";
import { withLeaderboards } from "./leaderboard-export";
import { MalformedRecord, readExportRecords, type ReadEnding } from "../services/migration/export-reader";
import { importStatistic, type StatisticOutcome } from "../services/migration/leancloud-statistics";
import type { PlayerImporter } from "../services/migration/player-importer";

export interface StatisticsSummary {
  file: string;
  read: number;
  recorded: number;
  skipped: Record<string, number>;
  /** The file ends inside its JSON (see ReadEnding): its last statistic is counted as malformed. */
  cutShort?: string;
}

const WINDOW = 32;

export async function importStatisticsFile(
  file: string,
  options: { config: AppConfig; appKey: string; store: UserStore; importer: PlayerImporter; boards: Record<string, string>; logger: Logger },
): Promise<StatisticsSummary> {
  const { config, appKey, store, importer } = options;
  const summary: StatisticsSummary = { file, read: 0, recorded: 0, skipped: {} };
  const count = (outcome: StatisticOutcome) => {
    if (outcome.kind === "recorded") summary.recorded++;
    else summary.skipped[outcome.reason] = (summary.skipped[outcome.reason] ?? 0) + 1;
  };
  return withLeaderboards(config, store, options.logger, async (leaderboards) => {
    const target = {
      appKey,
      boards: new Map(leaderboards.boards(appKey).map((b) => [b.id, { tournament: b.tournament !== undefined }])),
      findUser: store.findByIdentity.bind(store),
      sourceKey: (objectId: string) => importer.sourceKey(objectId),
      submit: (app: string, userId: string, boardId: string, score: number) => leaderboards.submit(app, userId, boardId, score, { keepBest: true }),
    };
    const running = new Set<Promise<void>>();
    const ending: ReadEnding = {};
    for await (const item of readExportRecords(file, 0, ending)) {
      summary.read++;
      const task =
        item instanceof MalformedRecord
          ? Promise.resolve(count({ kind: "skipped", reason: `malformed_record: ${item.reason}` }))
          : importStatistic(item.record, target, options.boards).then(count);
      const tracked = task.finally(() => running.delete(tracked));
      running.add(tracked);
      if (running.size >= WINDOW) await Promise.race(running);
    }
    await Promise.all(running);
    if (ending.cutShort) summary.cutShort = ending.cutShort;
    return summary;
  });
}

/** `--board wins=highscores,…` (the flag given once or more): LeanCloud statistic names → board ids (unlisted names keep theirs). */
export function parseBoardMap(specs: string | readonly string[] | undefined): Record<string, string> | string {
  const map: Record<string, string> = {};
  const parts = (typeof specs === "string" ? [specs] : (specs ?? [])).flatMap((spec) => spec.split(","));
  for (const part of parts.map((p) => p.trim()).filter(Boolean)) {
    const [name, board] = part.split("=").map((p) => p.trim());
    if (!name || !board) return `--board: "${part}" is not <statisticName>=<boardId>`;
    map[name] = board;
  }
  return map;
}
