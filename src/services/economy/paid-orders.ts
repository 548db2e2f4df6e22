/**
 * The catalog's word on orders paid with platform coins or money (docs/economy.md, "Paid orders"):
 *
 * - Pricing fixes an order's terms: the item, the quantity, the coin price of one and the catalog
 *   version they come from. The order records them, and delivery grants exactly that, from that
 *   version, whatever the live catalog says by then (a changed price, a removed item).
 * - A coin spend's per-player rules (a durable owned once, an item's `limit`) are decided in the
 *   economy ledger before the platform is asked to deduct: a hold keyed by the order (source
 *   `coin_order_hold`) counts the order as a purchase, and the ledger refuses it atomically with
 *   every other purchase of the player, in every process. An item with no such rule is not held:
 *   its delivery counts it. A refused hold fails the order with
 *   nothing deducted; an order the platform refused gives its hold back (`coin_order_release`).
 * - An item bought through the platform (pushed) is paid before we hear of it: it is delivered and
 *   counted as a purchase, never refused by the limit (the platform's money is taken).
 */
import { AppError } from "../../core/errors";
import { MAX_ORDER_COINS } from "../../core/ports/order-ledger";
import type { CatalogItem, Grants } from "../../core/catalog";
import type { EconomyChange, EconomyStore } from "../../core/ports/economy-store";
import type { ItemCount, RewardGrantResult } from "../../core/ports/reward-grants";
import type { CatalogService } from "./catalog-service";
import { grantResult, type EconomyRewards } from "./reward-granter";
import { catalogPricesOnly, pricesWith, type Offers } from "./offers";

/** What an order for platform coins costs, priced by the catalog: the terms the order records. */
export interface PricedOrder {
  itemId: string;
  quantity: number;
  /** The catalog's coin price of one. */
  unitPrice: number;
  /** unitPrice × quantity: what the platform is asked to deduct. */
  coins: number;
  /** The version of the app's catalog the price comes from. */
  catalogVersion: number;
  /** The live event whose sale set unitPrice; absent at the catalog's price. */
  liveEvent?: string;
}

/** A paid order as delivery and the rules see it (a subset of the ledger's Order). */
export interface PaidOrder {
  id: string;
  userId: string;
  kind: string;
  itemId: string;
  coins: number;
  quantity?: number | null;
  catalogVersion?: number | null;
  /** The live event whose sale priced it: its delivery's ledger entry names it. */
  liveEvent?: string | null;
}

/** Why a coin spend's hold was refused: its order fails with this code and nothing is deducted. */
export type OrderRefusal = "purchase_limit" | "already_owned";

const HOLD = "coin_order_hold";
const RELEASE = "coin_order_release";

export class PaidOrders {
  /** The player's price now (a live event's sale): LiveOps when wired, else the catalog's. */
  offers: Offers = catalogPricesOnly;

  constructor(
    private readonly store: EconomyStore,
    private readonly catalogs: CatalogService,
    private readonly rewards: EconomyRewards,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The terms of an order for `quantity` of the item from the live catalog: 404 item_not_found,
   * 409 price_mismatch, 422 order_too_large; 409 purchase_limit / already_owned when the player's
   * ledger already shows it (a first, cheap answer: the hold decides, see reserve).
   */
  async price(app: string, userId: string, request: { itemId: string; quantity?: number; coins?: number }): Promise<PricedOrder> {
    const quantity = request.quantity ?? 1;
    const { version, catalog } = this.catalogs.get(app);
    const listed = this.catalogs.itemOnSale(app, request.itemId, catalog);
    const offer = listed ? await this.offers.offer(app, userId, listed) : { onSale: false };
    const item = offer.onSale ? listed : undefined;
    const unit = item ? pricesWith(item, offer).coins : undefined;
    const liveEvent = offer.sale?.prices.coins !== undefined ? offer.sale.eventId : undefined;
    if (!item || unit === undefined) throw new AppError("item_not_found", { data: { itemId: request.itemId } });
    if (item.kind === "durable" && quantity !== 1) throw new AppError("invalid_request", { message: "quantity: a durable item is bought one at a time" });
    const coins = unit * quantity;
    if (coins > MAX_ORDER_COINS) {
      throw new AppError("order_too_large", { data: { itemId: item.itemId, quantity, unitPrice: unit, maxCoins: MAX_ORDER_COINS } });
    }
    if (request.coins !== undefined && request.coins !== coins) {
      throw new AppError("price_mismatch", { data: { itemId: item.itemId, quantity, coins, unitPrice: unit } });
    }
    const state = await this.store.state(app, userId);
    const refusal = decideEarly(item, quantity, state.items, state.purchased);
    if (refusal) throw new AppError(refusal, { data: { itemId: item.itemId, ...(refusal === "purchase_limit" ? { limit: item.limit } : {}) } });
    return { itemId: item.itemId, quantity, unitPrice: unit, coins, catalogVersion: version, ...(liveEvent ? { liveEvent } : {}) };
  }

  /**
   * Counts a coin spend as a purchase before the platform is asked, once per order (a retry answers
   * the first outcome): null when it may be charged, else why not. Orders without recorded terms
   * (made before they were kept) are not held: their delivery counts them.
   */
  async reserve(app: string, order: PaidOrder): Promise<OrderRefusal | null> {
    if (order.kind !== "coin_spend" || !order.quantity || order.catalogVersion == null) return null;
    const item = await this.catalogs.itemAt(app, order.catalogVersion, order.itemId);
    if (!item) throw new Error(`order ${order.id}: item ${order.itemId} is not in catalog version ${order.catalogVersion}`);
    const durable = item.kind === "durable";
    // No rule to hold the order to: it counts as a purchase when delivered (one ledger step fewer).
    if (!ruled(item)) return null;
    const { entry } = await this.store.apply({
      ...this.key(app, order, HOLD),
      purchase: { itemId: item.itemId, quantity: order.quantity, limit: durable ? 1 : item.limit },
      ownedOnce: durable ? [item.itemId] : undefined,
    });
    if (entry.outcome === "applied") return null;
    // Another order of a durable holding it first reads as owned: it will be, once that one is delivered.
    return durable || entry.reason === "already_owned" ? "already_owned" : "purchase_limit";
  }

  /** Gives back the hold of a coin spend the platform refused (nothing deducted), once. */
  async release(app: string, order: PaidOrder): Promise<void> {
    if (order.kind !== "coin_spend") return;
    const hold = await this.store.findBySource(app, HOLD, order.id);
    if (!hold || hold.outcome !== "applied" || !hold.purchase) return;
    await this.store.apply({ ...this.key(app, order, RELEASE), purchase: { itemId: hold.purchase.itemId, quantity: -hold.purchase.quantity } });
  }

  /**
   * Grants what a paid order bought (source coin_order or item_push, keyed by our order id), once.
   * A coin spend with recorded terms grants its quantity of the item as its catalog version lists
   * it; older orders and pushed purchases the live catalog's item (older coin orders: coins over
   * its price). Null when the live catalog lacks such an item; a recorded version lacking it throws
   * (the order stays paid and is retried: its terms are fixed, never silently dropped).
   */
  async deliver(app: string, order: PaidOrder): Promise<RewardGrantResult | null> {
    const coinSpend = order.kind === "coin_spend";
    const termed = coinSpend && !!order.quantity && order.catalogVersion != null;
    const item = termed ? await this.catalogs.itemAt(app, order.catalogVersion!, order.itemId) : this.catalogs.item(app, order.itemId);
    if (!item) {
      if (termed) throw new Error(`order ${order.id}: item ${order.itemId} is not in catalog version ${order.catalogVersion}`);
      return null;
    }
    const unit = item.prices.coins;
    const quantity = termed ? order.quantity! : coinSpend && unit && order.coins % unit === 0 ? Math.max(1, order.coins / unit) : 1;
    const grant = scaledGrants(item.grants, quantity);
    const { entry, first } = await this.store.apply({
      ...this.key(app, order, coinSpend ? "coin_order" : "item_push"),
      currencies: grant.currencies,
      items: grant.items,
      // A held coin spend was counted by its hold; every other paid order counts here, never refused.
      purchase: termed && ruled(item) ? undefined : { itemId: item.itemId, quantity },
      ...(order.liveEvent ? { liveEvent: order.liveEvent } : {}),
    });
    if (entry.outcome !== "applied") throw new AppError("source_conflict", { data: { source: entry.source, sourceId: entry.sourceId } });
    if (first) this.rewards.announce(entry);
    return { ...grantResult(entry), granted: first };
  }

  private key(app: string, order: PaidOrder, source: string): Pick<EconomyChange, "appId" | "userId" | "source" | "sourceId" | "at"> {
    return { appId: app, userId: order.userId, source, sourceId: order.id, at: new Date(this.now()).toISOString() };
  }
}

/** Whether a coin spend of the item is held to a per-player rule (and so counted by its hold, see reserve). */
function ruled(item: CatalogItem): boolean {
  return item.kind === "durable" || item.limit !== undefined;
}

/** The rules against a state read before the order: a quick refusal, not the decision. */
function decideEarly(item: CatalogItem, quantity: number, items: Record<string, number>, purchased: Record<string, number>): OrderRefusal | null {
  if (item.kind === "durable" && ((items[item.itemId] ?? 0) > 0 || (purchased[item.itemId] ?? 0) > 0)) return "already_owned";
  if (item.limit !== undefined && (purchased[item.itemId] ?? 0) + quantity > item.limit) return "purchase_limit";
  return null;
}

function scaledGrants(grants: Grants, quantity: number): { currencies?: Record<string, number>; items: ItemCount[] } {
  const currencies = grants.currencies ? Object.fromEntries(Object.entries(grants.currencies).map(([k, v]) => [k, v * quantity])) : undefined;
  const counts = new Map<string, number>();
  for (const { itemId, count } of grants.items ?? []) counts.set(itemId, (counts.get(itemId) ?? 0) + count * quantity);
  return { currencies, items: [...counts].map(([itemId, count]) => ({ itemId, count })) };
}
