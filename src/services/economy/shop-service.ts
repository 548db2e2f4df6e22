/**
 * The player's side of the economy: wallet, inventory, buying with soft currency, and the catalog's
 * word on what platform purchases cost and grant. Prices always come from the catalog; a client can
 * name an item and a quantity, never a price.
 */
import { AppError, type ErrorCode } from "../../core/errors";
import type { CatalogItem, Grants } from "../../core/catalog";
import type { EconomyChange, EconomyStore, LedgerEntry } from "../../core/ports/economy-store";
import type { ItemCount, RewardGrantResult } from "../../core/ports/reward-grants";
import { NO_ANALYTICS, type AnalyticsRecorder } from "../../core/ports/analytics-store";
import { SERVER_EVENTS } from "../analytics/event-names";
import type { CatalogService } from "./catalog-service";
import type { EconomyRewards } from "./reward-granter";
import { catalogPricesOnly, pricesWith, type ItemOffer, type Offers } from "./offers";

export interface PurchaseRequest {
  purchaseId: string;
  itemId: string;
  quantity?: number;
}

export interface PurchaseResult {
  purchaseId: string;
  itemId: string;
  quantity: number;
  /** What was paid, by soft currency. */
  paid: Record<string, number>;
  balances: Record<string, number>;
  items: ItemCount[];
  /** True for the request that made the purchase (201), false for a replay (200). */
  created: boolean;
}

export const REFUSAL_ERRORS: Record<string, ErrorCode> = {
  insufficient_funds: "insufficient_funds",
  purchase_limit: "purchase_limit",
  already_owned: "already_owned",
};

export class ShopService {
  private analytics: AnalyticsRecorder = NO_ANALYTICS;
  /** The player's price now (a live event's sale): LiveOps when wired, else the catalog's. */
  offers: Offers = catalogPricesOnly;

  constructor(
    private readonly store: EconomyStore,
    private readonly catalogs: CatalogService,
    private readonly rewards: EconomyRewards,
    private readonly now: () => number = Date.now,
  ) {}

  /** Where purchases are reported (docs/analytics.md). */
  reportTo(recorder: AnalyticsRecorder): void {
    this.analytics = recorder;
  }

  async wallet(app: string, userId: string): Promise<{ balances: Record<string, number> }> {
    return { balances: (await this.store.state(app, userId)).balances };
  }

  async inventory(app: string, userId: string): Promise<{ items: ItemCount[] }> {
    const { items } = await this.store.state(app, userId);
    return { items: Object.entries(items).map(([itemId, count]) => ({ itemId, count })) };
  }

  /**
   * Buys with soft currency: once per (player, purchaseId); a replay answers the first outcome.
   * `admitNew` runs for a purchaseId the ledger does not hold yet, before anything is written (every
   * new one writes a claim and a ledger entry, refused or not): the caller's per-player rate limit,
   * which replays never count against.
   */
  async buy(app: string, userId: string, request: PurchaseRequest, admitNew?: () => Promise<void>): Promise<PurchaseResult> {
    const quantity = request.quantity ?? 1;
    const listed = this.catalogs.itemOnSale(app, request.itemId);
    const offer: ItemOffer = listed ? await this.offers.offer(app, userId, listed) : { onSale: false };
    const item = offer.onSale ? listed : undefined;
    const price = item ? softPrice(item, offer) : {};
    // An item with no soft price is not for sale with soft currency: as unknown as an item that does not exist.
    if (!item || Object.keys(price).length === 0) {
      const earlier = await this.store.findBySource(app, "purchase", purchaseKey(userId, request.purchaseId));
      if (!earlier) throw new AppError("item_not_found", { data: { itemId: request.itemId } });
      return this.answer(request, earlier, false);
    }
    if (item.kind === "durable" && quantity !== 1) throw new AppError("invalid_request", { message: "quantity: a durable item is bought one at a time" });
    const currencies: Record<string, number> = {};
    for (const [currency, amount] of Object.entries(price)) currencies[currency] = -amount * quantity;
    for (const [currency, amount] of Object.entries(item.grants.currencies ?? {})) currencies[currency] = (currencies[currency] ?? 0) + amount * quantity;
    const change: EconomyChange = {
      appId: app,
      userId,
      source: "purchase",
      sourceId: purchaseKey(userId, request.purchaseId),
      currencies,
      items: scaled(item.grants, quantity),
      purchase: { itemId: item.itemId, quantity, limit: item.kind === "durable" ? 1 : item.limit },
      ownedOnce: item.kind === "durable" ? [item.itemId] : undefined,
      // The sale this purchase was priced by, named in the ledger.
      liveEvent: offer.sale && Object.keys(offer.sale.prices).some((c) => c !== "coins") ? offer.sale.eventId : undefined,
      at: new Date(this.now()).toISOString(),
    };
    if (admitNew) {
      const earlier = await this.store.findBySource(app, "purchase", change.sourceId);
      if (earlier) return this.answer(request, earlier, false);
      await admitNew();
    }
    const { entry, first } = await this.store.apply(change);
    if (first && entry.outcome === "applied") {
      this.rewards.announce(entry);
      const cost = Object.fromEntries(Object.entries(price).map(([currency, amount]) => [`cost_${currency}`, amount * quantity]));
      this.analytics.record({ id: `purchase:${app}:${change.sourceId}`, name: SERVER_EVENTS.softPurchase, app, userId, props: { itemId: item.itemId, quantity, ...cost } });
    }
    return this.answer(request, entry, first);
  }

  /**
   * Why a pushed item purchase must not be delivered (unknown item, price below the catalog's), or
   * null when it may. The platform reports its price in its own unit (WeChat: fen): the item's
   * `platformPrice` when set, else its `prices.coins`.
   */
  refusePushedPurchase(app: string, itemId: string, price: number): "item_not_found" | "price_below_catalog" | null {
    const item = this.catalogs.item(app, itemId);
    const expected = item?.platformPrice ?? item?.prices.coins;
    if (!item || expected === undefined) return "item_not_found";
    return price < expected ? "price_below_catalog" : null;
  }

  private answer(request: PurchaseRequest, entry: LedgerEntry, first: boolean): PurchaseResult {
    if (!entry.purchase || entry.purchase.itemId !== request.itemId || (request.quantity ?? 1) !== entry.purchase.quantity) {
      throw new AppError("source_conflict", { message: "This purchaseId was already used for another item or quantity", data: { purchaseId: request.purchaseId } });
    }
    if (entry.outcome === "refused") throw new AppError(REFUSAL_ERRORS[entry.reason ?? ""] ?? "insufficient_funds", { data: { purchaseId: request.purchaseId, itemId: request.itemId } });
    const paid = Object.fromEntries(Object.entries(entry.currencies).filter(([, v]) => v < 0).map(([k, v]) => [k, -v]));
    return {
      purchaseId: request.purchaseId,
      itemId: entry.purchase.itemId,
      quantity: entry.purchase.quantity,
      paid,
      balances: entry.state.balances,
      items: entry.items.map((i) => ({ itemId: i.itemId, count: entry.state.items[i.itemId] ?? 0 })),
      created: first,
    };
  }
}

/** A player's purchaseIds are their own: the ledger key names the player. */
const purchaseKey = (userId: string, purchaseId: string) => `${userId}:${purchaseId}`;

function softPrice(item: CatalogItem, offer: ItemOffer): Record<string, number> {
  return Object.fromEntries(Object.entries(pricesWith(item, offer)).filter(([currency]) => currency !== "coins"));
}

function scaled(grants: Grants, quantity: number): ItemCount[] {
  return (grants.items ?? []).map((i) => ({ itemId: i.itemId, count: i.count * quantity }));
}
