/** The order counts per (platform, kind, state) of MongoOrderLedger (mongo-order-ledger.ts), from its claims. */
import type { Collection } from "mongoose";
import type { OrderKind, OrderState } from "../../../core/ports/order-ledger";

/** In a state = began in it or entered it, and not left it: three counts, no per-order reads. */
/** `orders` hold platform, kind and initialState; `states` the state claims (platform, kind, from, to). */
export async function countOrdersByState(orders: Pick<Collection, "aggregate">, states: Pick<Collection, "aggregate">): Promise<Array<{ platform: string; kind: OrderKind; state: OrderState; count: number }>> {
  const counts = new Map<string, number>();
  const add = (platform: string, kind: string, state: string, n: number) => {
    const k = `${platform}\0${kind}\0${state}`;
    counts.set(k, (counts.get(k) ?? 0) + n);
  };
  type Group = { _id: { platform: string; kind: string; state: string }; n: number };
  const began = await orders.aggregate<Group>([{ $group: { _id: { platform: "$platform", kind: "$kind", state: "$initialState" }, n: { $sum: 1 } } }]).toArray();
  const entered = await states.aggregate<Group>([{ $group: { _id: { platform: "$platform", kind: "$kind", state: "$to" }, n: { $sum: 1 } } }]).toArray();
  const left = await states.aggregate<Group>([{ $group: { _id: { platform: "$platform", kind: "$kind", state: "$from" }, n: { $sum: 1 } } }]).toArray();
  for (const g of [...began, ...entered]) add(g._id.platform, g._id.kind, g._id.state, g.n);
  for (const g of left) add(g._id.platform, g._id.kind, g._id.state, -g.n);
  return [...counts]
    .filter(([, n]) => n > 0)
    .map(([k, count]) => {
      const [platform, kind, state] = k.split("\0");
      return { platform, kind: kind as OrderKind, state: state as OrderState, count };
    });
}
