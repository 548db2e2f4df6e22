import type { Order } from "../../core/ports/order-ledger";

/** An order as operators and exports show it: `env` named (`live`, `sandbox`), not the platform's 0/1. */
export type OrderView = Omit<Order, "env"> & { env: "live" | "sandbox" };

export function presentOrder(order: Order): OrderView {
  return { ...order, env: order.env === 1 ? "sandbox" : "live" };
}
