/** Boards as configuration: LEADERBOARDS_FILE and APPS_FILE's `leaderboards`, every problem at once. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, parseConfig } from "../../src/config/config";
import { rewardCatalogProblems } from "../../src/config/settings/leaderboards";
import { exampleCatalog } from "../../src/core/catalog";
import { checkSettings, formatCheck } from "../../src/ops/settings-check";
import { BoardPeriods } from "../../src/services/leaderboards/board-periods";
import type { LeaderboardStore } from "../../src/core/ports/leaderboard-store";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-boards-config-"));
let n = 0;
function file(content: unknown): string {
  const name = path.join(dir, `f${n++}.json`);
  fs.writeFileSync(name, typeof content === "string" ? content : JSON.stringify(content));
  return name;
}
function problems(env: Record<string, string>): string {
  try {
    parseConfig({ NODE_ENV: "test", ...env });
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems.join("\n");
  }
  assert.fail("expected a ConfigError");
}

describe("leaderboards configuration", () => {
  it("serves the example boards (highscores, a weekly tournament) in development without a file", () => {
    const boards = parseConfig({ NODE_ENV: "test" }).leaderboards.default;
    const highscores = boards.find((b) => b.id === "highscores")!;
    assert.deepEqual([highscores.operator, highscores.order, highscores.clientSubmit], ["best", "desc", true]);
    const weekly = boards.find((b) => b.id === "weekly")!;
    assert.deepEqual([weekly.reset, weekly.timezone, weekly.tournament?.joinRequired], ["0 0 * * 1", "Asia/Shanghai", true]);
  });

  it("reads a file per app with defaults filled in", () => {
    const config = parseConfig({ NODE_ENV: "test", LEADERBOARDS_FILE: file({ default: [{ id: "daily", reset: "0 5 * * *" }] }) });
    assert.deepEqual(config.leaderboards.default, [
      { id: "daily", reset: "0 5 * * *", order: "desc", operator: "best", timezone: "Asia/Shanghai", clientSubmit: false, clientSubmitsPerMinute: 30, rewards: [] },
    ]);
  });

  it("reports every problem of every board at once, each naming where it is", () => {
    const text = problems({
      LEADERBOARDS_FILE: file({
        default: [
          { id: "Bad Id", order: "up" },
          { id: "a", reset: "61 * * * *", minScore: 10, maxScore: 1 },
          { id: "b", timezone: "Mars/Olympus", reset: "0 0 * * 1" },
          { id: "c", rewards: [{ ranks: [1, 5], currencies: { gold: 1 } }, { ranks: [5, 9], currencies: { gold: 1 } }, { ranks: [3, 2] } ] },
          { id: "d", tournament: { startsAt: "2026-02-01T00:00:00Z", endsAt: "2026-01-01T00:00:00Z" } },
          { id: "e", rewards: [{ ranks: [1, 1], currencies: { "gold coins": 1 } }] },
          { id: "a" },
        ],
        nosuchapp: [],
      }),
    });
    for (const expected of [
      "default[0].id",
      "default[0].order",
      "default[1].reset: not a cron pattern",
      "default[1].maxScore: must be at least minScore",
      'default[2].timezone: unknown time zone "Mars/Olympus"',
      "default[3].rewards: rank ranges overlap",
      "default[3].rewards[2].ranks",
      "must give currencies or items",
      "default[5].rewards[0].currencies.gold coins",
      "default[4].tournament.endsAt: must end after it starts",
      "nosuchapp: no such app",
    ]) {
      assert.ok(text.includes(expected), `missing "${expected}" in:\n${text}`);
    }
    assert.match(problems({ LEADERBOARDS_FILE: file({ default: [{ id: "a" }, { id: "a" }] }) }), /board "a" is listed twice/);
  });

  it("takes boards from an app's APPS_FILE entry too, and refuses one defined in both places", () => {
    const apps = file({ apps: [{ key: "puzzle", wechat: { appId: "wx_puzzle", appSecret: "puzzle-secret" }, leaderboards: [{ id: "stars", operator: "increment" }] }] });
    const config = parseConfig({ NODE_ENV: "test", APPS_FILE: apps, LEADERBOARDS_FILE: file({ default: [{ id: "x" }] }) });
    assert.deepEqual(config.leaderboards.puzzle.map((b) => [b.id, b.operator]), [["stars", "increment"]]);
    assert.deepEqual(config.leaderboards.default.map((b) => b.id), ["x"]);
    const text = problems({ APPS_FILE: apps, LEADERBOARDS_FILE: file({ puzzle: [{ id: "stars" }] }) });
    assert.match(text, /board "stars" of app "puzzle" is in both LEADERBOARDS_FILE and APPS_FILE/);
    const bad = file({ apps: [{ key: "puzzle", wechat: { appId: "wx_puzzle", appSecret: "puzzle-secret" }, leaderboards: [{ id: "s", operator: "sum" }] }] });
    assert.match(problems({ APPS_FILE: bad }), /APPS_FILE apps\[0\]\.leaderboards\[0\]\.operator/);
  });

  it("checks reward ids against each board's app's catalog, every unknown one reported with the other settings' problems", () => {
    const wx = (key: string) => ({ appId: `wx_${key}`, appSecret: `${key}-secret-value-1234` });
    const puzzleCatalog = { currencies: [{ currencyId: "stars" }], items: [{ itemId: "hint", name: "Hint", kind: "consumable", prices: { stars: 1 } }] };
    const apps = file({
      apps: [
        { key: "puzzle", wechat: wx("puzzle"), catalog: puzzleCatalog, leaderboards: [{ id: "p", rewards: [{ ranks: [1, 1], currencies: { stars: 3, gems: 1 }, items: [{ itemId: "hint", count: 1 }] }] }] },
        { key: "arcade", wechat: wx("arcade"), leaderboards: [{ id: "q", rewards: [{ ranks: [1, 1], currencies: { gold: 1 } }] }, { id: "free" }] },
      ],
    });
    // The default app sells the example catalog in development: currency gems, items sword … potion.
    const boards = file({
      default: [
        { id: "a", rewards: [{ ranks: [1, 1], currencies: { gold: 5 } }, { ranks: [2, 3], items: [{ itemId: "potion", count: 1 }, { itemId: "chest", count: 1 }] }] },
        { id: "b", rewards: [{ ranks: [1, 10], currencies: { coins: 5, gems: 5 } }] },
      ],
    });
    const env = { APPS_FILE: apps, LEADERBOARDS_FILE: boards, ACCESS_TOKEN_TTL_SEC: "600", REFRESH_TOKEN_TTL_SEC: "300" };
    const text = problems(env);
    for (const expected of [
      'board "a" of app "default": rewards[0].currencies.gold: unknown currency (app "default"\'s catalog declares: gems)',
      'board "a" of app "default": rewards[1].items[1]: unknown item "chest"',
      'board "b" of app "default": rewards[0].currencies.coins: unknown currency',
      'board "p" of app "puzzle": rewards[0].currencies.gems: unknown currency (app "puzzle"\'s catalog declares: stars)',
      'board "q" of app "arcade" pays rewards, but app "arcade" has no catalog',
      "REFRESH_TOKEN_TTL_SEC: must be longer than ACCESS_TOKEN_TTL_SEC",
    ]) {
      assert.ok(text.includes(expected), `missing "${expected}" in:\n${text}`);
    }
    for (const known of ["potion", "stars:", "hint", "items[0]", '"free"']) assert.ok(!text.includes(known), `"${known}" is not a problem:\n${text}`);
    assert.ok(!text.includes('currencies.gems: unknown currency (app "default"'), text);
    const check = checkSettings({ NODE_ENV: "development", ...env });
    assert.equal(check.ok, false);
    assert.match(formatCheck(check), /unknown item "chest"[\s\S]*has no catalog|has no catalog[\s\S]*unknown item "chest"/);
    // Reward ids the catalogs declare start.
    const fixed = file({ default: [{ id: "a", rewards: [{ ranks: [1, 1], currencies: { gems: 5 }, items: [{ itemId: "potion", count: 1 }] }] }] });
    const good = file({ apps: [{ key: "puzzle", wechat: wx("puzzle"), catalog: puzzleCatalog, leaderboards: [{ id: "p", rewards: [{ ranks: [1, 1], currencies: { stars: 3 } }] }] }] });
    assert.equal(parseConfig({ NODE_ENV: "test", APPS_FILE: good, LEADERBOARDS_FILE: fixed }).leaderboards.puzzle[0].id, "p");
    // The example boards (no boards configured) are not the operator's: a catalog of one's own still starts.
    const own = file({ currencies: [{ currencyId: "gold" }], items: [{ itemId: "hat", name: "Hat", kind: "durable", prices: { gold: 5 } }] });
    assert.ok(parseConfig({ NODE_ENV: "test", CATALOG_FILE: own }).leaderboards.default.some((b) => b.id === "weekly"));
    // …and they pay in the example catalog's currency and items.
    assert.deepEqual(rewardCatalogProblems(parseConfig({ NODE_ENV: "test" }).leaderboards, { default: exampleCatalog() }), []);
  });

  it("ends a weekly period at Monday midnight in the board's timezone, and a tournament's at its end", () => {
    const periods = new BoardPeriods({} as LeaderboardStore, Date.now);
    const weekly = parseConfig({ NODE_ENV: "test" }).leaderboards.default.find((b) => b.id === "weekly")!;
    assert.equal(periods.periodEnd(weekly, Date.parse("2026-11-25T12:00:00+08:00")), Date.parse("2026-11-30T00:00:00+08:00"));
    assert.equal(periods.periodEnd(weekly, Date.parse("2027-12-24T12:00:00+08:00")), Date.parse("2027-12-27T00:00:00+08:00"));
    const utc = { ...weekly, timezone: "UTC", tournament: undefined };
    assert.equal(periods.periodEnd(utc, Date.parse("2026-11-25T12:00:00Z")), Date.parse("2026-11-30T00:00:00Z"));
  });
});
