/**
 * The orders screen's queue of paid orders that need a person (services/console/order-queue.ts):
 * the list (viewer), and from it a retry (support), a refund where the platform has one (admin), and
 * recording a refused push as refunded on the platform (admin). Each action is audited against the
 * player, the refund also as started before it is sent (a refund the process dies in stays on record).
 */
import type { Router } from "express";
import { z } from "zod";
import { parseInput } from "../http/validate";
import { OrderQueue } from "../services/console/order-queue";
import { consoleOrderSchema, userIdParam } from "./console-schemas";
import type { ScreenContext } from "./console-screens";

export const queueOrderParams = userIdParam.extend({ id: z.string().min(1).max(64).meta({ description: "The order's own id (`order.id`), not the game's orderId", example: "5f0c2a8e-3b1d-4c55-9a51-0d6f7f2b9e10" }) });

export const queueEntrySchema = z.strictObject({
  order: consoleOrderSchema,
  reason: z.enum(["delivery_failing", "delivery_waiting", "outcome_unknown", "grant_unconfirmed", "push_refused"]).describe("Why the order needs a person; a refused push's catalog reason is `order.failure`"),
  player: z.strictObject({ username: z.string(), nickname: z.string().nullable() }).nullable(),
  actions: z.array(z.enum(["retry", "refund", "record_refund"])).describe("What an operator can do: a refund only where the order's platform has one"),
});

export function orderQueueRoutes(router: Router, { services, guard }: ScreenContext): void {
  const queue = new OrderQueue({
    ledger: services.payments.ledger,
    payments: services.payments.payments,
    operations: services.payments.operations,
    platformDefinitions: services.platformDefinitions,
    store: services.store,
    settleAfterMs: services.config.payments.settleAfterMs,
  });
  const detailOf = (order: { id: string; orderId: string; kind: string; platform: string; coins: number; state: string }) => ({ id: order.id, orderId: order.orderId, kind: order.kind, platform: order.platform, coins: order.coins, state: order.state });

  router.get("/orders/queue", ...guard.read("viewer", () => queue.list()));
  router.post("/orders/queue/:userId/:id/retry", ...guard.change("order.retry", "support", async (req) => {
    const { userId, id } = parseInput(queueOrderParams, req.params);
    const order = await queue.retry(userId, id);
    return { target: userId, detail: detailOf(order), result: order };
  }));
  router.post("/orders/queue/:userId/:id/refund", ...guard.change("order.refund", "admin", async (req) => {
    const { userId, id } = parseInput(queueOrderParams, req.params);
    const order = await queue.refund(userId, id);
    return { target: userId, detail: detailOf(order), result: order };
  }, { recordAttempt: true }));
  router.post("/orders/queue/:userId/:id/record-refund", ...guard.change("order.record_refund", "admin", async (req) => {
    const { userId, id } = parseInput(queueOrderParams, req.params);
    const order = await queue.recordRefund(userId, id);
    return { target: userId, detail: detailOf(order), result: order };
  }));
}
