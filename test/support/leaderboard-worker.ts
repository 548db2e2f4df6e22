/**
 * One process running the leaderboard service over a real store (and Redis when given), driven by
 * the test over IPC: the second process of the two-process suites, and the one killed mid-payout.
 * Its clock is the test's (`now`), so a period's end comes when the test says. Rewards go through
 * the economy's RewardGranter on the same database, each paid player told by mail, as in the server.
 * Started by startLeaderboardWorker (leaderboard-workers.ts) with its settings as argv[2] (JSON).
 */
import { createCache } from "../../src/adapters/cache/create-cache";
import { RedisRankIndex } from "../../src/adapters/cache/redis-rank-index";
import { createLeaderboardStore } from "../../src/adapters/store/create-leaderboard-store";
import type { AppConfig } from "../../src/config/config";
import { parseBoards } from "../../src/config/settings/leaderboards";
import { LeaderboardService } from "../../src/services/leaderboards/leaderboard-service";
import { createEconomyStore } from "../../src/adapters/store/create-economy-store";
import { EconomyRewards } from "../../src/services/economy/reward-granter";
import { createRewardStores } from "../../src/adapters/store/create-reward-stores";
import { MailService } from "../../src/services/rewards/mail-service";

export interface WorkerSettings {
  store: AppConfig["store"];
  redisUrl?: string;
  prefix: string;
  boards: unknown[];
  now: number;
  /** After this many grants the worker reports `paused` and stops there, until killed. */
  pauseAfterGrants?: number;
  leaseMs: number;
}

export type WorkerCommand =
  | { op: "submit"; userId: string; board: string; score: number }
  | { op: "seed"; board: string; from: number; count: number }
  | { op: "now"; value: number }
  | { op: "tick" }
  | { op: "period"; board: string };

async function main(): Promise<void> {
  const settings = JSON.parse(process.argv[2]) as WorkerSettings;
  const parsed = parseBoards(settings.boards, "boards");
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
  let now = settings.now;
  let grants = 0;
  const store = await createLeaderboardStore(settings.store);
  const cache = await createCache(settings.redisUrl ? { kind: "redis", url: settings.redisUrl } : { kind: "memory" }, settings.prefix);
  const index = settings.redisUrl ? new RedisRankIndex(settings.redisUrl, settings.prefix) : undefined;
  // The economy's own reward ledger, on the same database: what the server pays seasons through.
  const granter = new EconomyRewards(await createEconomyStore(settings.store), () => now);
  // The mail telling each paid player, as the server wires it (container.ts).
  const mail = new MailService({ store: await createRewardStores(settings.store), rewards: granter, defaultExpiryDays: 30, now: () => now });
  const quiet = { info: () => undefined, warn: () => undefined };
  const service = new LeaderboardService({
    boards: { default: parsed.boards },
    store,
    users: { findById: async (id: string) => ({ id, username: `user-${id}`, nickname: null, status: 1 }) as never },
    cache,
    index,
    granter,
    notifyReward: async (notice) => void (await mail.notice({ ...notice, sender: "leaderboard" })),
    logger: quiet,
    now: () => now,
    payoutLeaseMs: settings.leaseMs,
    afterGrant: async () => {
      grants += 1;
      if (settings.pauseAfterGrants !== undefined && grants >= settings.pauseAfterGrants) {
        process.send!({ event: "paused", grants });
        await new Promise(() => undefined); // held here until the test kills the process
      }
    },
  });
  process.on("message", async (message: { id: number; command: WorkerCommand }) => {
    const { id, command } = message;
    try {
      let result: unknown = null;
      if (command.op === "submit") result = await service.submit("default", command.userId, command.board, command.score);
      else if (command.op === "now") now = command.value;
      else if (command.op === "tick") await service.tick();
      else if (command.op === "period") result = await service.periods.current("default", service.board("default", command.board), true);
      else if (command.op === "seed") {
        const board = service.board("default", command.board);
        const period = (await service.periods.current("default", board))!;
        const key = { app: "default", board: board.id, seq: period.seq };
        for (let i = command.from; i < command.from + command.count; i += 50) {
          const batch = Array.from({ length: Math.min(50, command.from + command.count - i) }, (_, j) => i + j);
          await Promise.all(batch.map((n) => store.submit(key, board.order, board.operator, { userId: `p${String(n).padStart(5, "0")}`, name: `p${n}`, score: n, subscore: 0, metadata: null, at: now })));
        }
      }
      process.send!({ id, ok: true, result });
    } catch (err) {
      process.send!({ id, ok: false, error: String((err as Error).stack ?? err) });
    }
  });
  process.send!({ event: "ready" });
}

main().catch((err) => {
  process.stderr.write(`worker failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
