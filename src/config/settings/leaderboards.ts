/**
 * Leaderboards as configuration, per app: LEADERBOARDS_FILE (`{"<app key>": [board, …]}`) and the
 * `leaderboards` list of an app's APPS_FILE entry. Both are checked with the other settings and
 * every problem is reported at once, each naming where it is. Without either, development serves
 * the example boards (EXAMPLE_BOARDS) on the default app so the playground has one to fill.
 */
import fs from "node:fs";
import { Cron } from "croner";
import { z } from "zod";
import { DEFAULT_APP } from "../../core/apps";
import type { Catalog } from "../../core/catalog";

export const DEFAULT_BOARD_TIMEZONE = "Asia/Shanghai";
const BOARD_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const safeInt = z.number().int().min(-1e15).max(1e15);
const count = z.number().int().positive().max(1_000_000_000);
const REWARD_ID = /^[A-Za-z0-9_.:-]{1,64}$/;

const rewardSchema = z
  .strictObject({
    /** First and last rank (inclusive) this reward is for. */
    ranks: z.tuple([z.number().int().min(1), z.number().int().min(1)]),
    // The ids the reward ledger takes (services/economy/reward-granter.ts).
    currencies: z.record(z.string().regex(REWARD_ID, "is not a currency id (1–64 of A-Z a-z 0-9 _ . : -)"), count).optional(),
    items: z.array(z.strictObject({ itemId: z.string().regex(REWARD_ID, "is not an item id (1–64 of A-Z a-z 0-9 _ . : -)"), count })).optional(),
  })
  .refine((r) => r.ranks[0] <= r.ranks[1], { message: "ranks must be [first, last] with first ≤ last", path: ["ranks"] })
  .refine((r) => Object.keys(r.currencies ?? {}).length > 0 || (r.items ?? []).length > 0, "must give currencies or items");

const tournamentSchema = z
  .strictObject({
    startsAt: z.iso.datetime({ offset: true }),
    endsAt: z.iso.datetime({ offset: true }),
    /** Players must join (POST …/join) before their scores count. */
    joinRequired: z.boolean().default(false),
    /** At most this many players per period; later joiners get 409 tournament_full. */
    maxSize: z.number().int().positive().max(10_000_000).optional(),
  })
  .refine((t) => Date.parse(t.endsAt) > Date.parse(t.startsAt), { message: "must end after it starts", path: ["endsAt"] });

const boardSchema = z
  .strictObject({
    id: z.string().regex(BOARD_ID, "must be 1–32 of a-z 0-9 _ - (starting with a letter or digit)"),
    title: z.string().min(1).max(64).optional(),
    order: z.enum(["desc", "asc"]).default("desc"),
    operator: z.enum(["best", "latest", "increment"]).default("best"),
    /** Cron (5 or 6 fields) of the resets; none: the board never resets on its own. */
    reset: z.string().min(1).optional(),
    timezone: z.string().min(1).default(DEFAULT_BOARD_TIMEZONE),
    minScore: safeInt.optional(),
    maxScore: safeInt.optional(),
    /** Whether players may submit through POST /api/leaderboards/{id}/scores (else only the server's code). */
    clientSubmit: z.boolean().default(false),
    /** Client submissions per player per minute on this board. */
    clientSubmitsPerMinute: z.number().int().min(1).max(6000).default(30),
    rewards: z.array(rewardSchema).default([]),
    tournament: tournamentSchema.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.minScore !== undefined && b.maxScore !== undefined && b.minScore > b.maxScore) {
      ctx.addIssue({ code: "custom", path: ["maxScore"], message: "must be at least minScore" });
    }
    if (b.reset !== undefined) {
      const problem = cronProblem(b.reset, b.timezone);
      if (problem) ctx.addIssue({ code: "custom", path: [problem.field], message: problem.message });
    }
    const sorted = [...b.rewards].sort((x, y) => x.ranks[0] - y.ranks[0]);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i].ranks[0] <= sorted[i - 1].ranks[1]) ctx.addIssue({ code: "custom", path: ["rewards"], message: `rank ranges overlap at rank ${sorted[i].ranks[0]}` });
    }
  });

export type BoardDefinition = z.output<typeof boardSchema>;
export type BoardReward = BoardDefinition["rewards"][number];

/** The example boards of the embedded defaults: an all-time high-score board and a weekly tournament. */
export const EXAMPLE_BOARDS: readonly unknown[] = [
  { id: "highscores", title: "High scores", order: "desc", operator: "best", clientSubmit: true, minScore: 0, maxScore: 1_000_000 },
  {
    id: "weekly",
    title: "Weekly cup",
    order: "desc",
    operator: "increment",
    reset: "0 0 * * 1",
    timezone: DEFAULT_BOARD_TIMEZONE,
    // The example catalog's currency and item (core/catalog.ts exampleCatalog).
    rewards: [
      { ranks: [1, 1], currencies: { gems: 100 }, items: [{ itemId: "potion", count: 3 }] },
      { ranks: [2, 3], currencies: { gems: 50 } },
      { ranks: [4, 10], currencies: { gems: 10 } },
    ],
    tournament: { startsAt: "2026-01-05T00:00:00+08:00", endsAt: "2027-12-27T00:00:00+08:00", joinRequired: true, maxSize: 10_000 },
  },
];

function cronProblem(pattern: string, timezone: string): { field: string; message: string } | null {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    return { field: "timezone", message: `unknown time zone "${timezone}"` };
  }
  try {
    const cron = new Cron(pattern, { timezone, paused: true });
    if (!cron.nextRun()) return { field: "reset", message: "never fires" };
  } catch (err) {
    return { field: "reset", message: `not a cron pattern: ${(err as Error).message}` };
  }
  return null;
}

/** Boards per app key, or every problem found (each naming where it is). */
export type BoardsByApp = Record<string, BoardDefinition[]>;

export function parseBoards(raw: unknown, where: string): { boards: BoardDefinition[] } | { problems: string[] } {
  const parsed = z.array(z.unknown()).safeParse(raw);
  if (!parsed.success) return { problems: [`${where}: must be a list of boards`] };
  const problems: string[] = [];
  const boards: BoardDefinition[] = [];
  parsed.data.forEach((entry, index) => {
    const board = boardSchema.safeParse(entry);
    if (board.success) boards.push(board.data);
    else for (const issue of board.error.issues) problems.push(`${where}[${index}]${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}: ${issue.message}`);
  });
  const seen = new Set<string>();
  for (const b of boards) {
    if (seen.has(b.id)) problems.push(`${where}: board "${b.id}" is listed twice`);
    seen.add(b.id);
  }
  return problems.length > 0 ? { problems } : { boards };
}

/** LEADERBOARDS_FILE's boards per app, and its problems (the boards of every app without one). */
export function readLeaderboardsFile(file: string): { boards: BoardsByApp; problems: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { boards: {}, problems: [e.code ? `cannot read ${file}: ${e.code}` : `${file} is not valid JSON: ${e.message}`] };
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) return { boards: {}, problems: [`${file} must be {"<app key>": [board, …]}`] };
  const boards: BoardsByApp = {};
  const problems: string[] = [];
  for (const [app, list] of Object.entries(json)) {
    const result = parseBoards(list, app);
    if ("problems" in result) problems.push(...result.problems);
    else boards[app] = result.boards;
  }
  return { boards, problems };
}

function safeJson(file: string): object {
  try {
    const json = JSON.parse(fs.readFileSync(file, "utf8"));
    return json && typeof json === "object" && !Array.isArray(json) ? json : {};
  } catch {
    return {};
  }
}

export const leaderboardsShape = {
  LEADERBOARDS_FILE: z.string().min(1).optional(),
  /** How often each process looks for ended periods (resets) and unpaid season rewards. */
  LEADERBOARD_TICK_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /** How long Redis keeps an ended period's ranks after its end (once its rewards are paid); then reads use the store. */
  LEADERBOARD_PERIOD_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(7),
};

/**
 * The reward ids of every board that its app's catalog does not declare: season rewards are paid
 * through the economy, which would credit an unknown currency or item that nothing in the game uses.
 * Checked against the settings' catalog (version 0) of each board's app.
 */
export function rewardCatalogProblems(boards: BoardsByApp, catalogs: Readonly<Record<string, Catalog>>): string[] {
  const problems: string[] = [];
  for (const [app, list] of Object.entries(boards)) {
    const catalog = catalogs[app];
    const currencies = new Set(catalog?.currencies.map((c) => c.currencyId));
    const items = new Set(catalog?.items.map((i) => i.itemId));
    const declared = (set: Set<string>) => [...set].join(", ") || "none";
    for (const board of list) {
      if (board.rewards.length === 0) continue;
      const where = `board "${board.id}" of app "${app}"`;
      if (!catalog) {
        problems.push(`${where} pays rewards, but app "${app}" has no catalog to pay them from (CATALOG_FILE, or "catalog" in its APPS_FILE entry)`);
        continue;
      }
      board.rewards.forEach((reward, r) => {
        for (const currency of Object.keys(reward.currencies ?? {})) {
          if (!currencies.has(currency)) problems.push(`${where}: rewards[${r}].currencies.${currency}: unknown currency (app "${app}"'s catalog declares: ${declared(currencies)})`);
        }
        (reward.items ?? []).forEach((item, i) => {
          if (!items.has(item.itemId)) problems.push(`${where}: rewards[${r}].items[${i}]: unknown item "${item.itemId}" (not in app "${app}"'s catalog)`);
        });
      });
    }
  }
  return problems;
}

/**
 * Every app's boards from both sources, or every problem: unknown apps, a board defined in both
 * places, each board's own problems, and, given the apps' catalogs, reward ids they do not declare.
 */
export function leaderboardsConfig(
  file: string | undefined,
  appEntries: ReadonlyArray<{ key: string; leaderboards?: unknown }>,
  production: boolean,
  catalogs?: Readonly<Record<string, Catalog>>,
): { boards: BoardsByApp; problems: string[] } {
  const problems: string[] = [];
  const boards: BoardsByApp = {};
  const appKeys = new Set([DEFAULT_APP, ...appEntries.map((a) => a.key)]);
  if (file) {
    const fromFile = readLeaderboardsFile(file);
    problems.push(...fromFile.problems);
    const named = fs.existsSync(file) ? Object.keys(safeJson(file)) : [];
    for (const app of named) if (!appKeys.has(app)) problems.push(`${app}: no such app (apps: ${[...appKeys].join(", ")})`);
    for (const [app, list] of Object.entries(fromFile.boards)) if (appKeys.has(app)) boards[app] = [...list];
  }
  appEntries.forEach((entry, index) => {
    if (entry.leaderboards === undefined) return;
    const result = parseBoards(entry.leaderboards, `APPS_FILE apps[${index}].leaderboards`);
    if ("problems" in result) return problems.push(...result.problems);
    const list = (boards[entry.key] ??= []);
    for (const b of result.boards) {
      if (list.some((x) => x.id === b.id)) problems.push(`board "${b.id}" of app "${entry.key}" is in both LEADERBOARDS_FILE and APPS_FILE`);
      else list.push(b);
    }
  });
  // The operator's boards only: the examples pay in the example catalog, and a development setup with
  // a catalog of its own but no boards must still start.
  if (catalogs) problems.push(...rewardCatalogProblems(boards, catalogs));
  if (!file && !appEntries.some((a) => a.leaderboards !== undefined) && !production) {
    const examples = parseBoards(EXAMPLE_BOARDS, "examples");
    if ("boards" in examples) boards[DEFAULT_APP] = examples.boards;
  }
  return { boards, problems };
}
