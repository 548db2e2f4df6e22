/**
 * LeanCloud leaderboard statistics → records of this server's boards. LeanCloud keeps a player's
 * value per statistic (`statisticName`, `statisticValue`, the period `version`, and the player as
 * `user: {__type: "Pointer", className: "_User", objectId}`), as its REST API answers them
 * (leancloud/docs, docs/sdk/leaderboard/guide/rest.mdx, "查询某个成绩" / "查询一组成绩"); its
 * console's archive CSVs are not read (their columns are not documented).
 *
 * A statistic becomes the player's record on the board of the same id (or the one `boards` maps it
 * to), submitted as `best`: a second import, or a player whose record here is already better,
 * changes nothing. Players are found by their LeanCloud objectId, so the users import comes first.
 */
import { AppError } from "../../core/errors";
import type { PlatformIdentityKey, User } from "../../core/user";

export interface StatisticsTarget {
  appKey: string;
  findUser(key: PlatformIdentityKey): Promise<User | null>;
  sourceKey(objectId: string): PlatformIdentityKey;
  /** Board ids of the app, and whether a board is a tournament (those take no imported scores). */
  boards: ReadonlyMap<string, { tournament: boolean }>;
  submit(app: string, userId: string, boardId: string, score: number): Promise<unknown>;
}

export type StatisticOutcome = { kind: "recorded"; userId: string; boardId: string } | { kind: "skipped"; reason: string };

export function statisticOf(row: Record<string, unknown>): { objectId?: string; name?: string; value?: number } {
  const user = row.user;
  const pointer = typeof user === "object" && user !== null ? (user as Record<string, unknown>).objectId : undefined;
  const objectId = typeof pointer === "string" ? pointer : typeof row.objectId === "string" ? row.objectId : undefined;
  const name = typeof row.statisticName === "string" ? row.statisticName : undefined;
  const value = typeof row.statisticValue === "number" ? row.statisticValue : undefined;
  return { objectId, name, value };
}

export async function importStatistic(row: Record<string, unknown>, target: StatisticsTarget, boardMap: Readonly<Record<string, string>>): Promise<StatisticOutcome> {
  const { objectId, name, value } = statisticOf(row);
  if (!objectId || !name || value === undefined) return { kind: "skipped", reason: "not_a_statistic" };
  const boardId = boardMap[name] ?? name;
  const board = target.boards.get(boardId);
  if (!board) return { kind: "skipped", reason: `no_board:${boardId}` };
  if (board.tournament) return { kind: "skipped", reason: `tournament:${boardId}` };
  const user = await target.findUser(target.sourceKey(objectId));
  if (!user) return { kind: "skipped", reason: "player_not_imported" };
  try {
    await target.submit(target.appKey, user.id, boardId, value);
  } catch (err) {
    // Out of the board's bounds, banned, not an integer: the player's refusal, not the run's.
    if (err instanceof AppError && err.status < 500) return { kind: "skipped", reason: err.code };
    throw err;
  }
  return { kind: "recorded", userId: user.id, boardId };
}
