/** The API description's economy operations: the catalog, wallet, inventory and soft-currency purchases (docs/economy.md). */
import { z } from "zod";
import * as e from "../economy-schemas";
import * as s from "../schemas";
import { AUTH_ERRORS, type OperationSpec } from "./operation-spec";

export function registerEconomyComponents(register: (id: string, schema: z.ZodType) => void): void {
  register("Catalog", e.catalogSchema);
  register("CatalogResponse", s.okEnvelope(e.catalogSchema));
  register("WalletResponse", s.okEnvelope(e.walletSchema));
  register("InventoryResponse", s.okEnvelope(e.inventorySchema));
  register("PurchaseResponse", s.okEnvelope(e.purchaseSchema));
}

const errorFields = {
  itemId: z.string().optional().describe("The item the failure is about"),
  purchaseId: z.string().optional().describe("The purchase the failure is about"),
  limit: z.int().min(1).max(1_000_000_000).optional().meta({ description: "purchase_limit: the item's per-player limit", example: 1 }),
};

export function economyOperations(): OperationSpec[] {
  return [
    {
      method: "get",
      path: "/api/catalog",
      operationId: "getCatalog",
      tag: "Economy",
      summary: "The token's app's catalog",
      description:
        "Items with their prices (`prices.coins`: platform coins, bought with POST /api/payments/orders; any other key: a soft " +
        "currency, bought with POST /api/economy/purchases), what each grants, per-player limits and sale windows; the soft " +
        "currencies; rewarded-ad units with their daily caps; gift packs. `prices` are what this player pays now: during a live " +
        "event's sale, the sale's (`regularPrices` the catalog's, `saleEventId` the event), and a purchase or coin order is charged " +
        "exactly that; a limited-time item is listed only while one of the player's events offers it. `version` 0 is the settings' catalog " +
        "(CATALOG_FILE, APPS_FILE); each operator change (`npm run admin -- catalog load`) adds 1 and reaches every server " +
        "process within CATALOG_REFRESH_SEC.",
      security: "bearer",
      success: { status: 200, component: "CatalogResponse", description: "`data`: the catalog" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "get",
      path: "/api/economy/wallet",
      operationId: "getWallet",
      tag: "Economy",
      summary: "The player's soft currencies in the token's app",
      description: "Balances by currency id; a currency never held is absent (0). Balances never go negative.",
      security: "bearer",
      success: { status: 200, component: "WalletResponse", description: "`data.balances`" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "get",
      path: "/api/economy/inventory",
      operationId: "getInventory",
      tag: "Economy",
      summary: "The player's items in the token's app",
      description: "Every item the player holds with its count: bought, delivered for a paid order, or granted (ads, gifts, mail, operators).",
      security: "bearer",
      success: { status: 200, component: "InventoryResponse", description: "`data.items`" },
      errors: [...AUTH_ERRORS],
    },
    {
      method: "post",
      path: "/api/economy/purchases",
      operationId: "buyWithSoftCurrency",
      tag: "Economy",
      summary: "Buy a catalog item with soft currency, once per purchaseId",
      description:
        "The price is the catalog's soft-currency price × `quantity` (an item priced in several soft currencies takes each). " +
        "201 with the balances after and the counts of what it granted; the same `purchaseId` again, also concurrently and " +
        "from any server process, answers 200 with the same result and takes nothing more (a refused one answers the same " +
        "refusal: use a new purchaseId to try again). Too little of the currency → 402 `insufficient_funds`, nothing taken; " +
        "past the item's per-player limit → 409 `purchase_limit`; a durable already owned → 409 `already_owned`; an item " +
        "not in the catalog, off sale, or without a soft-currency price → 404 `item_not_found`; a purchaseId already used " +
        "for another item or quantity → 409 `source_conflict`. More new purchaseIds from one player than RATE_LIMIT_USER_MAX " +
        "in the window → 429 `rate_limited` with nothing written (replays never count). A player in a room gets a `reward` message.",
      security: "bearer",
      body: { schema: e.purchaseBody, examples: { potion: { purchaseId: "buy-20260101-0001", itemId: "potion", quantity: 1 } } },
      success: { status: 201, component: "PurchaseResponse", description: "The purchase", replay: "The purchase made earlier under this purchaseId: nothing taken again" },
      errors: [...AUTH_ERRORS, "insufficient_funds", "purchase_limit", "already_owned", "item_not_found", "source_conflict", "rate_limited"],
      errorFields,
    },
  ];
}
