/**
 * The game's shop as the server owns it (docs/economy.md): the catalog with its prices, the
 * player's wallet (soft currencies) and inventory, and buying an item at the catalog's price, with
 * platform coins or soft currency, whichever the catalog prices it in. Each purchase carries an id
 * the client makes once, so retrying after a lost answer never buys twice.
 */
import type { AuthedRequest, Order } from "./payments";
import { spendCoins } from "./payments";

export interface ItemCount {
  itemId: string;
  count: number;
}
export interface Grants {
  items?: ItemCount[];
  currencies?: Record<string, number>;
}
export interface CatalogItem {
  itemId: string;
  name: string;
  kind: "consumable" | "durable" | "bundle";
  /** What this player pays now (a live event's sale applied): `coins`: the platform-coin price; any other key: a soft currency's. */
  prices: Record<string, number>;
  /** The catalog's prices without a sale. */
  regularPrices?: Record<string, number>;
  /** The live event whose sale sets `prices`. */
  saleEventId?: string;
  grants: Grants;
  limit?: number;
  sale?: { from?: string; until?: string };
}
export interface Catalog {
  version: number;
  currencies: Array<{ currencyId: string; name?: string }>;
  items: CatalogItem[];
  ads: Array<{ adUnitId: string; grants: Grants; dailyCap: number }>;
  giftPacks: Array<{ giftId: string; grants: Grants }>;
  growthRewards: Array<{ rewardId: "sidebar" | "game_club"; grants: Grants }>;
}
export interface SoftPurchase {
  purchaseId: string;
  itemId: string;
  quantity: number;
  paid: Record<string, number>;
  balances: Record<string, number>;
  items: ItemCount[];
}
/** What `buy` did: an order paid in platform coins, or a purchase paid in soft currency. */
export type BuyResult = { paidWith: "coins"; order: Order } | { paidWith: "soft"; purchase: SoftPurchase };

/** The `reward` event: a grant that reached the player (purchase, order, ad, gift, mail, operator). */
export interface RewardEvent {
  source: string;
  sourceId: string;
  currencies: Record<string, number>;
  items: ItemCount[];
  /** The player's balances after it. */
  balances: Record<string, number>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An id for one purchase: made once per `buy`, sent again with every retry of it. */
export function purchaseId(): string {
  return `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

export function catalog(request: AuthedRequest): Promise<Catalog> {
  return request<Catalog>("GET", "/api/catalog");
}

export async function wallet(request: AuthedRequest): Promise<Record<string, number>> {
  return (await request<{ balances: Record<string, number> }>("GET", "/api/economy/wallet")).balances;
}

export async function inventory(request: AuthedRequest): Promise<ItemCount[]> {
  return (await request<{ items: ItemCount[] }>("GET", "/api/economy/inventory")).items;
}

/**
 * Buys `quantity` of a catalog item at the catalog's price: with platform coins when the catalog
 * prices it in coins, else with its soft currency. A lost answer is retried with the same id (at most
 * `attempts` times); refusals reject with the server's code (`insufficient_funds`, `purchase_limit`…).
 */
export async function buy(request: AuthedRequest, itemId: string, options: { quantity?: number; attempts?: number; id?: string } = {}): Promise<BuyResult> {
  const item = (await catalog(request)).items.find((i) => i.itemId === itemId);
  const id = options.id ?? purchaseId();
  const attempts = options.attempts ?? 3;
  if (item?.prices.coins !== undefined) {
    return { paidWith: "coins", order: await spendCoins(request, { orderId: id, itemId, quantity: options.quantity }, attempts) };
  }
  for (let attempt = 1; ; attempt++) {
    try {
      const purchase = await request<SoftPurchase>("POST", "/api/economy/purchases", { purchaseId: id, itemId, quantity: options.quantity });
      return { paidWith: "soft", purchase };
    } catch (err) {
      const code = (err as { code?: string } | null)?.code;
      if ((code !== "network_error" && code !== "timeout") || attempt >= attempts) throw err;
      await sleep(1000);
    }
  }
}
