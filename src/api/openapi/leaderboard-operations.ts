/** The API description's leaderboard operations (docs/leaderboards.md). */
import { z } from "zod";
import type { ErrorCode } from "../../core/errors";
import * as lb from "../leaderboard-schemas";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export function registerLeaderboardComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("LeaderboardRecord", lb.rankedRecordSchema);
  register("LeaderboardListResponse", s.okEnvelope(lb.boardListSchema));
  register("LeaderboardRecordsPageResponse", s.okEnvelope(lb.recordsPageSchema));
  register("LeaderboardRecordsResponse", s.okEnvelope(lb.recordsListSchema));
  register("LeaderboardMyRecordResponse", s.okEnvelope(lb.myRecordSchema));
  register("LeaderboardRecordResponse", s.okEnvelope(lb.rankedRecordSchema));
  register("TournamentJoinedResponse", s.okEnvelope(lb.joinedSchema));
}

const BOARD_NOTE =
  "Boards are the token's app's (LEADERBOARDS_FILE or the app's `leaderboards` in APPS_FILE). Ranks: by score in the board's " +
  "order, then subscore, then who reached the score first. Each record shows the player's name (nickname, else username) as of " +
  "their last submission. `period=previous` reads the period before the current one: the final ranking of the last reset. " +
  "A tournament that has ended reads its last period.";
const READ_ERRORS: ErrorCode[] = [...AUTH_ERRORS, "board_not_found", "invalid_request"];
/** What a leaderboard failure may carry beside its code. */
const ERROR_FIELDS = {
  boardId: z.string().optional().describe("board_not_found: the id asked for"),
  min: z.number().nullable().optional().describe("score_out_of_bounds: the board's lowest score (null: none)"),
  max: z.number().nullable().optional().describe("score_out_of_bounds: the board's highest score (null: none)"),
  maxSize: z.int().min(1).max(10_000_000).optional().describe("tournament_full: the tournament's size"),
};
const path = (suffix: string) => `/api/leaderboards/{boardId}${suffix}`;
const boardParam = { schema: lb.boardIdParam, examples: { boardId: "highscores" } };

export function leaderboardOperations(): OperationSpec[] {
  return [
    {
      method: "get",
      path: "/api/leaderboards",
      operationId: "listLeaderboards",
      tag: "Leaderboards",
      summary: "The app's boards and tournaments",
      description: `Every board of the token's app with its rules and rewards. ${BOARD_NOTE}`,
      security: "bearer",
      success: { status: 200, component: "LeaderboardListResponse", description: "The boards" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "get",
      path: path("/records"),
      operationId: "leaderboardRecords",
      tag: "Leaderboards",
      summary: "The top of a board, a page at a time, or the records of given players",
      description:
        `Records in rank order, \`limit\` at a time; \`data.next\` is the cursor of the next page (null on the last). With ` +
        "`userIds` (e.g. the game's friends), those players' records instead, by rank; players without one are left out. " +
        BOARD_NOTE,
      security: "bearer",
      pathParams: boardParam,
      query: { schema: lb.recordsQuery, examples: { limit: "20" } },
      success: { status: 200, component: "LeaderboardRecordsPageResponse", description: "A page of records" },
      errors: READ_ERRORS,
      errorFields: ERROR_FIELDS,
    },
    {
      method: "get",
      path: path("/records/around-me"),
      operationId: "leaderboardAroundMe",
      tag: "Leaderboards",
      summary: "The player's neighbours on a board",
      description: `About half of \`limit\` above the player, the rest below, the player between. No record → 404 \`no_record\`. ${BOARD_NOTE}`,
      security: "bearer",
      pathParams: boardParam,
      query: { schema: lb.aroundQuery, examples: { limit: "11" } },
      success: { status: 200, component: "LeaderboardRecordsResponse", description: "The records around the player" },
      errors: [...READ_ERRORS, "no_record"],
      errorFields: ERROR_FIELDS,
    },
    {
      method: "get",
      path: path("/me"),
      operationId: "leaderboardMe",
      tag: "Leaderboards",
      summary: "The player's rank and score",
      description: `No record in the period → 404 \`no_record\`. ${BOARD_NOTE}`,
      security: "bearer",
      pathParams: boardParam,
      query: { schema: lb.meQuery, examples: { period: "current" } },
      success: { status: 200, component: "LeaderboardMyRecordResponse", description: "The player's record" },
      errors: [...READ_ERRORS, "no_record"],
      errorFields: ERROR_FIELDS,
    },
    {
      method: "post",
      path: path("/scores"),
      operationId: "leaderboardSubmit",
      tag: "Leaderboards",
      summary: "Submit a score from the client, where the board allows it",
      description:
        "Scores normally come from the game's server code (rooms call `leaderboards.submit`); a board takes them from clients " +
        "only with `clientSubmit` → else 403 `client_submit_disabled`. The board's bounds → 400 `score_out_of_bounds`; at most " +
        "`clientSubmitsPerMinute` per player → 429 `rate_limited`. The board's operator applies: `best` keeps the better score, " +
        "`latest` the last, `increment` adds. A tournament needing a join → 403 `tournament_join_required`; full → 409 " +
        "`tournament_full`; not running → 409 `tournament_not_active`. Banned → 403 `banned_from_board`. Answers the player's " +
        "record and rank after the submission.",
      security: "bearer",
      pathParams: boardParam,
      body: { schema: lb.scoreBody, examples: { score: { score: 1200 } } },
      success: { status: 200, component: "LeaderboardRecordResponse", description: "The player's record after the submission" },
      errors: [
        ...READ_ERRORS,
        "client_submit_disabled",
        "score_out_of_bounds",
        "rate_limited",
        "banned_from_board",
        "tournament_join_required",
        "tournament_full",
        "tournament_not_active",
        "payload_too_large",
        "unsupported_media_type",
      ],
      errorFields: ERROR_FIELDS,
    },
    {
      method: "post",
      path: path("/join"),
      operationId: "tournamentJoin",
      tag: "Leaderboards",
      summary: "Join a tournament's current period",
      description:
        "Idempotent. Not a tournament → 400 `invalid_request`; at its maximum size → 409 `tournament_full`; not running → 409 " +
        "`tournament_not_active`; banned → 403 `banned_from_board`.",
      security: "bearer",
      pathParams: boardParam,
      success: { status: 200, component: "TournamentJoinedResponse", description: "Joined (now or before)" },
      errors: [...READ_ERRORS, "tournament_full", "tournament_not_active", "banned_from_board"],
      errorFields: ERROR_FIELDS,
    },
  ];
}
