/**
 * What the economy asks LiveOps (services/liveops): the price a player pays for an item right now
 * (a live event's sale) and the multiplier of their ad and gift-pack rewards. The shop and paid
 * orders charge exactly this; without LiveOps the catalog's price stands.
 */
import type { CatalogItem } from "../../core/catalog";

export interface ItemOffer {
  /** False for a limited-time item outside the player's events: not for sale. */
  onSale: boolean;
  /** The sale prices of one (by currency) and the event they come from; absent: the catalog's. */
  sale?: { prices: Record<string, number>; eventId: string };
}

export interface Offers {
  offer(app: string, userId: string, item: CatalogItem): Promise<ItemOffer>;
  rewardFactor(app: string, userId: string, kind: "ads" | "giftPacks"): Promise<{ factor: number; eventId?: string }>;
}

export const catalogPricesOnly: Offers = {
  offer: async () => ({ onSale: true }),
  rewardFactor: async () => ({ factor: 1 }),
};

/** The item's prices for the player: the sale's where it sets one, the catalog's otherwise. */
export function pricesWith(item: CatalogItem, offer: ItemOffer): Record<string, number> {
  return { ...item.prices, ...(offer.sale?.prices ?? {}) };
}

/** Grants multiplied by a live event's factor: each amount rounded, never below 1. */
export function boosted<G extends { currencies?: Record<string, number>; items?: Array<{ itemId: string; count: number }> }>(grants: G, factor: number): G {
  if (factor === 1) return grants;
  const times = (n: number) => Math.max(1, Math.round(n * factor));
  return {
    ...grants,
    ...(grants.currencies ? { currencies: Object.fromEntries(Object.entries(grants.currencies).map(([k, v]) => [k, times(v)])) } : {}),
    ...(grants.items ? { items: grants.items.map((i) => ({ itemId: i.itemId, count: times(i.count) })) } : {}),
  };
}
