/**
 * The players screen's one page per player (services/console/player-page.ts): profile, last login,
 * wallet with its ledger, inventory, orders, mail and leaderboard records of one app in one read
 * (viewer). The live rooms stay their own read (/players/{userId}/rooms: they are asked of the rooms).
 */
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/validate";
import { ConsolePlayers } from "../services/console/console-players";
import { PlayerPage } from "../services/console/player-page";
import { appQuery, knownApp } from "./console-apps";
import { boardRecordsSchema, consoleOrderSchema, mailSentSchema, playerOverviewSchema, userIdParam, walletViewSchema } from "./console-schemas";
import type { ScreenContext } from "./console-screens";

const amounts = z.record(z.string(), z.int().min(-2_000_000_000).max(2_000_000_000).meta({ example: 50 }));
const itemChanges = z.array(z.strictObject({ itemId: z.string(), count: z.int().min(-2_000_000_000).max(2_000_000_000).meta({ example: 1 }) }));

export const playerPageSchema = z.strictObject({
  overview: playerOverviewSchema,
  logins: z.array(z.strictObject({ app: z.string(), at: z.string() })).describe("When each live session began (its login), by app; none without a live session"),
  app: z.string(),
  wallet: walletViewSchema.omit({ app: true }).nullable().describe("null where the economy is not wired"),
  ledger: z
    .array(
      z.strictObject({
        seq: z.int().min(1).max(2_000_000_000).meta({ example: 3 }),
        source: z.string().meta({ example: "operator" }),
        sourceId: z.string(),
        outcome: z.enum(["applied", "refused"]),
        refusal: z.string().nullable(),
        currencies: amounts,
        items: itemChanges,
        note: z.string().nullable().describe("The reason given with the change"),
        by: z.string().nullable().describe("The operator whose console action made it (from the audit trail)"),
        at: z.string(),
      }),
    )
    .nullable()
    .describe("The app's ledger, newest first (100 entries at most)"),
  orders: z.array(consoleOrderSchema).describe("Newest first, 50 at most"),
  mail: z.array(mailSentSchema.omit({ appId: true, created: true }).extend({ claimed: z.boolean(), claimedAt: z.string().nullable() })).nullable(),
  records: boardRecordsSchema.shape.records.nullable(),
});

export function playerPageRoutes(router: Router, { services, guard, audit }: ScreenContext): void {
  // The player reads only (overview, orders): the export is the players routes' own.
  const players = new ConsolePlayers({ ...services, userExport: { collect: () => Promise.reject(new Error("the player page exports nothing")) } });
  const page = new PlayerPage({
    players,
    sessions: services.sessions,
    audit,
    economy: services.economy?.store,
    mail: services.rewardSources?.mail,
    leaderboards: services.leaderboards,
  });
  router.get("/players/:userId/page", ...guard.read("viewer", async (req) => {
    const { userId } = parseInput(userIdParam, req.params);
    const app = knownApp(services, parseInput(appQuery, req.query).app);
    return page.of(userId, app);
  }));
}
