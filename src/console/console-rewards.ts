/**
 * The console's reward screen: an operator's grant of soft currencies and items through the one
 * RewardGranter (source `operator`, keyed by the operator's grant id, so a repeat grants nothing
 * more), and its correction: a debit of currencies and items through the same ledger (source
 * `operator_debit`, keyed by the operator's debit id). Both name only what the app's catalog lists.
 * It plugs in wherever the economy is wired (`services.economy.rewards`) and is absent otherwise;
 * the economy's wallet, inventory, catalog and mail screens join it the same way.
 */
import type { Router } from "express";
import { z } from "zod";
import { AppError } from "../core/errors";
import type { RewardGranter } from "../core/ports/reward-grants";
import { parseInput } from "../http/validate";
import { debitByOperator } from "../services/economy/operator-debit";
import type { Services } from "../services/services";
import { knownApp, knownPlayer } from "./console-apps";
import type { ConsoleScreen } from "./console-screens";
import { userIdParam } from "./console-schemas";

/** The economy's granter when this build wires one (the economy adds `services.economy.rewards`). */
export function rewardGranterOf(services: Services): RewardGranter | undefined {
  const economy = (services as unknown as { economy?: { rewards?: RewardGranter } }).economy;
  return typeof economy?.rewards?.grant === "function" ? economy.rewards : undefined;
}

const amount = z.int().min(1).max(999_999_999);
export const rewardGrantBody = z
  .object({
    app: z.string().min(1).max(64).default("default"),
    currencies: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,32}$/), amount).default({}),
    items: z.array(z.object({ itemId: z.string().min(1).max(64), count: amount })).max(50).default([]),
    grantId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 of A-Z a-z 0-9 _ -: the same id again is the same grant"),
    reason: z.string().trim().min(1).max(64).default("operator grant"),
  })
  .refine((b) => Object.keys(b.currencies).length + b.items.length > 0, "give at least one currency or item");
export const rewardDebitBody = z
  .object({
    app: z.string().min(1).max(64).default("default"),
    currencies: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,32}$/), amount).default({}),
    items: z.array(z.object({ itemId: z.string().min(1).max(64), count: amount })).max(50).default([]),
    debitId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 of A-Z a-z 0-9 _ -: the same id again is the same debit"),
    reason: z.string().trim().min(1, "a reason is required").max(64),
  })
  .refine((b) => Object.keys(b.currencies).length + b.items.length > 0, "take at least one currency or item");

const totalOf = (b: { currencies: Record<string, number>; items: Array<{ count: number }> }) => Object.values(b.currencies).reduce((sum, n) => sum + n, 0) + b.items.reduce((sum, i) => sum + i.count, 0);

export const rewardsScreen: ConsoleScreen = {
  id: "rewards",
  title: "Rewards",
  role: "support",
  available: (services) => rewardGranterOf(services) !== undefined,
  routes(router: Router, { services, guard }) {
    router.post(
      "/rewards/players/:userId",
      ...guard.change("reward.grant", "support", async (req, session) => {
        const granter = rewardGranterOf(services);
        if (!granter) throw new AppError("route_not_found", { message: "The economy is not part of this server" });
        const { userId } = parseInput(userIdParam, req.params);
        const body = parseInput(rewardGrantBody, req.body ?? {});
        knownApp(services, body.app);
        await knownPlayer(services, userId);
        await services.economy.catalogs.refuseUnknown(body.app, body);
        const max = services.config.console.supportGrantMax;
        if (session.operator.role === "support" && totalOf(body) > max) {
          throw new AppError("console_role_forbidden", { message: `A support operator may grant at most ${max} in all at once`, data: { needs: "admin" } });
        }
        const result = await granter.grant({ appId: body.app, userId, source: "operator", sourceId: body.grantId, currencies: body.currencies, items: body.items, reason: body.reason });
        return { target: userId, outcome: result.granted ? "ok" : "repeated", detail: { app: body.app, grantId: body.grantId, currencies: body.currencies, items: body.items, reason: body.reason, granted: result.granted }, result };
      }, { recordAttempt: true }),
    );
    router.post(
      "/rewards/players/:userId/debit",
      ...guard.change("reward.debit", "support", async (req, session) => {
        const { userId } = parseInput(userIdParam, req.params);
        const body = parseInput(rewardDebitBody, req.body ?? {});
        knownApp(services, body.app);
        await knownPlayer(services, userId);
        await services.economy.catalogs.refuseUnknown(body.app, body);
        const max = services.config.console.supportGrantMax;
        if (session.operator.role === "support" && totalOf(body) > max) {
          throw new AppError("console_role_forbidden", { message: `A support operator may take at most ${max} in all at once`, data: { needs: "admin" } });
        }
        const result = await debitByOperator(services.economy.store, { appId: body.app, userId, debitId: body.debitId, currencies: body.currencies, items: body.items, reason: body.reason });
        return { target: userId, outcome: result.debited ? "ok" : "repeated", detail: { app: body.app, debitId: body.debitId, currencies: body.currencies, items: body.items, reason: body.reason, debited: result.debited }, result };
      }, { recordAttempt: true }),
    );
  },
};
