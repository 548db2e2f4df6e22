import type { EconomyStore } from "../../core/ports/economy-store";

/** The player's wallet, inventory and ledger in every app they have one in. */
export async function exportEconomy(store: Pick<EconomyStore, "appsOf" | "state" | "entries">, userId: string): Promise<Record<string, unknown>> {
  const apps: Record<string, unknown> = {};
  for (const app of await store.appsOf(userId)) {
    const state = await store.state(app, userId);
    apps[app] = { balances: state.balances, items: Object.entries(state.items).map(([itemId, count]) => ({ itemId, count })), ledger: await store.entries(app, userId) };
  }
  return apps;
}
