/**
 * An app's catalog: what the server sells and grants, and at what price. The server owns prices:
 * clients read them (GET /api/catalog) and can never set them. Read from CATALOG_FILE or an app's
 * `catalog` in APPS_FILE at start, and from the store when operators change it (`admin catalog`);
 * every problem of a catalog is reported at once, each naming the item it is about.
 *
 * `prices.coins` is the platform-coin price; any other key of `prices` is a soft currency that the
 * catalog declares in `currencies`. A consumable and a durable grant themselves unless `grants` says
 * otherwise; a bundle grants what `grants` says; a durable is owned at most once.
 */
import { z } from "zod";
import type { ItemCount } from "./ports/reward-grants";

const ID = /^[A-Za-z0-9_.-]{1,64}$/;
const id = z.string().regex(ID, "must be 1–64 of A-Z a-z 0-9 _ . -");
const amount = z.number().int("must be a whole number").positive("must be positive").max(1_000_000_000);
const grantsSchema = z.strictObject({
  items: z.array(z.strictObject({ itemId: id, count: amount })).optional(),
  currencies: z.record(z.string(), amount).optional(),
});
/** The growth surfaces a catalog can reward once per player per day (docs/growth.md). */
export const GROWTH_REWARD_IDS = ["sidebar", "game_club"] as const;
export type GrowthRewardId = (typeof GROWTH_REWARD_IDS)[number];
const isoTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 time, e.g. 2026-01-01T00:00:00Z" });

const itemSchema = z.strictObject({
  itemId: id,
  name: z.string().min(1, "is required").max(100),
  kind: z.enum(["consumable", "durable", "bundle"]),
  description: z.string().max(500).optional(),
  prices: z.record(z.string(), amount).default({}),
  grants: grantsSchema.optional(),
  /** How many a player may buy in total, all purchases together. */
  limit: amount.optional(),
  /** A direct item purchase's price in the platform's payment unit (WeChat: fen); `prices.coins` when absent. */
  platformPrice: amount.optional(),
  /** On sale from/until (either may be open). */
  sale: z.strictObject({ from: isoTime.optional(), until: isoTime.optional() }).optional(),
});

/** Each section's entries, checked one by one so that one bad entry hides no problem of the others. */
const entrySchemas = {
  currencies: z.strictObject({ currencyId: id, name: z.string().min(1).max(100).optional() }),
  items: itemSchema,
  ads: z.strictObject({ adUnitId: z.string().min(1).max(128), grants: grantsSchema, dailyCap: amount }),
  giftPacks: z.strictObject({ giftId: z.string().min(1).max(128), grants: grantsSchema }),
  /** Once-per-day growth rewards (docs/growth.md): the Douyin sidebar revisit, WeChat game-circle activity. */
  growthRewards: z.strictObject({ rewardId: z.enum(GROWTH_REWARD_IDS), grants: grantsSchema }),
} as const;
const SECTIONS = Object.keys(entrySchemas) as Array<keyof typeof entrySchemas>;
const catalogShape = z.strictObject(Object.fromEntries(SECTIONS.map((k) => [k, z.array(z.unknown()).default([])])) as Record<keyof typeof entrySchemas, z.ZodDefault<z.ZodArray<z.ZodUnknown>>>);

export type CatalogKind = "consumable" | "durable" | "bundle";
export interface Grants {
  items?: ItemCount[];
  currencies?: Record<string, number>;
}
export interface CatalogItem {
  itemId: string;
  name: string;
  kind: CatalogKind;
  description?: string;
  prices: Record<string, number>;
  /** What one purchase grants (filled in for consumables and durables that name none). */
  grants: Grants;
  limit?: number;
  platformPrice?: number;
  sale?: { from?: string; until?: string };
}
export interface Catalog {
  currencies: Array<{ currencyId: string; name?: string }>;
  items: CatalogItem[];
  ads: Array<{ adUnitId: string; grants: Grants; dailyCap: number }>;
  giftPacks: Array<{ giftId: string; grants: Grants }>;
  growthRewards: Array<{ rewardId: GrowthRewardId; grants: Grants }>;
}

export const emptyCatalog = (): Catalog => ({ currencies: [], items: [], ads: [], giftPacks: [], growthRewards: [] });

/** The catalog, or every problem with it, each prefixed with `where` (the file, the app) and the item. */
export function checkCatalog(json: unknown, where: string): { catalog: Catalog } | { problems: string[] } {
  const shape = catalogShape.safeParse(json);
  if (!shape.success) return { problems: shape.error.issues.map((i) => `${where}: ${describe(json, i.path)}${i.message}`) };
  const problems: string[] = [];
  // Entries that fail their schema are reported and left out of the checks between entries (their
  // ids still count as declared, so a reference to them is not reported twice).
  const parsedSections = Object.fromEntries(
    SECTIONS.map((section) => [
      section,
      shape.data[section].map((entry, index) => {
        const one = (entrySchemas[section] as z.ZodType).safeParse(entry);
        if (one.success) return one.data;
        for (const i of one.error.issues) problems.push(`${where}: ${describe(json, [section, index, ...i.path])}${i.message}`);
        return undefined;
      }),
    ]),
  ) as { [K in keyof Catalog]: Array<Catalog[K][number] | undefined> };
  const rawIds = (section: "items" | "currencies", key: "itemId" | "currencyId") =>
    shape.data[section].flatMap((e) => (e && typeof e === "object" && typeof (e as Record<string, unknown>)[key] === "string" ? [(e as Record<string, string>)[key]] : []));
  const catalog = parsedSections as unknown as Catalog;
  const say = (at: string, message: string) => problems.push(`${where}: ${at}: ${message}`);
  const currencies = new Set<string>(rawIds("currencies", "currencyId"));
  const declared = new Set<string>();
  catalog.currencies.forEach((c, i) => {
    if (!c) return;
    if (c.currencyId === "coins") say(`currencies[${i}]`, `"coins" is the platform's coin price, not a soft currency`);
    if (declared.has(c.currencyId)) say(`currencies[${i}] (${c.currencyId})`, "is declared twice");
    declared.add(c.currencyId);
  });
  const itemIds = new Set<string>(rawIds("items", "itemId"));
  const listed = new Set<string>();
  for (const [i, item] of catalog.items.entries()) {
    if (!item) continue;
    if (listed.has(item.itemId)) say(`items[${i}] (${item.itemId})`, "itemId is listed twice");
    listed.add(item.itemId);
  }
  const checkGrants = (at: string, grants: Grants) => {
    for (const currency of Object.keys(grants.currencies ?? {})) {
      if (!currencies.has(currency)) say(`${at}.grants.currencies.${currency}`, `unknown currency (declared: ${[...currencies].join(", ") || "none"})`);
    }
    for (const granted of grants.items ?? []) {
      if (!itemIds.has(granted.itemId)) say(`${at}.grants.items`, `unknown item ${granted.itemId}`);
    }
    if (!grants.currencies && !(grants.items ?? []).length) say(at, "grants nothing");
  };
  for (const [i, item] of catalog.items.entries()) {
    if (!item) continue;
    const at = `items[${i}] (${item.itemId})`;
    for (const currency of Object.keys(item.prices)) {
      if (currency !== "coins" && !currencies.has(currency)) say(`${at}.prices.${currency}`, `unknown currency (declared: ${[...currencies].join(", ") || "none"})`);
    }
    if (item.kind === "bundle" && !item.grants) say(at, "a bundle must say what it grants (grants)");
    item.grants ??= { items: [{ itemId: item.itemId, count: 1 }] };
    checkGrants(at, item.grants);
    if (item.kind === "durable" && item.limit !== undefined && item.limit !== 1) say(`${at}.limit`, "a durable is owned once: leave limit out or set 1");
    if (item.sale?.from && item.sale.until && Date.parse(item.sale.from) >= Date.parse(item.sale.until)) say(`${at}.sale`, "from must be before until");
  }
  const adUnits = new Set<string>();
  catalog.ads.forEach((ad, i) => {
    if (!ad) return;
    const at = `ads[${i}] (${ad.adUnitId})`;
    if (adUnits.has(ad.adUnitId)) say(at, "adUnitId is listed twice");
    adUnits.add(ad.adUnitId);
    checkGrants(at, ad.grants);
  });
  const gifts = new Set<string>();
  catalog.giftPacks.forEach((pack, i) => {
    if (!pack) return;
    const at = `giftPacks[${i}] (${pack.giftId})`;
    if (gifts.has(pack.giftId)) say(at, "giftId is listed twice");
    gifts.add(pack.giftId);
    checkGrants(at, pack.grants);
  });
  const growth = new Set<string>();
  catalog.growthRewards.forEach((reward, i) => {
    if (!reward) return;
    const at = `growthRewards[${i}] (${reward.rewardId})`;
    if (growth.has(reward.rewardId)) say(at, "rewardId is listed twice");
    growth.add(reward.rewardId);
    checkGrants(at, reward.grants);
  });
  return problems.length > 0 ? { problems } : { catalog };
}

/** A path with the item id it is about, e.g. `items[2] (sword).prices.gems: `. */
function describe(json: unknown, path: readonly PropertyKey[]): string {
  if (path.length === 0) return "";
  let node: unknown = json;
  let out = "";
  for (const [i, key] of path.entries()) {
    node = node && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[key as string] : undefined;
    out += typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`;
    if (typeof key === "number" && node && typeof node === "object") {
      const named = (node as Record<string, unknown>).itemId ?? (node as Record<string, unknown>).adUnitId ?? (node as Record<string, unknown>).giftId ?? (node as Record<string, unknown>).rewardId;
      if (typeof named === "string") out += ` (${named})`;
    }
  }
  return `${out}: `;
}

/** Whether the item can be bought at `now` (in its sale window). */
export function onSale(item: CatalogItem, now: number): boolean {
  if (item.sale?.from && now < Date.parse(item.sale.from)) return false;
  if (item.sale?.until && now >= Date.parse(item.sale.until)) return false;
  return true;
}

/** The example game's catalog: the embedded defaults ship it, the playground and docs use it. */
export function exampleCatalog(): Catalog {
  const result = checkCatalog(
    {
      currencies: [{ currencyId: "gems", name: "Gems" }],
      items: [
        { itemId: "sword", name: "Sword", kind: "consumable", prices: { coins: 30 } },
        { itemId: "shield", name: "Shield", kind: "consumable", prices: { coins: 20 } },
        { itemId: "gem", name: "Lucky gem", kind: "consumable", prices: { coins: 10 } },
        { itemId: "golden-skin", name: "Golden skin", kind: "durable", prices: { coins: 60 } },
        // 600 fen (6 yuan) when bought through WeChat's direct item purchase.
        { itemId: "gem_pack", name: "Pouch of 60 gems", kind: "bundle", prices: { coins: 60 }, platformPrice: 600, grants: { currencies: { gems: 60 } } },
        { itemId: "potion", name: "Health potion", kind: "consumable", prices: { gems: 10 } },
        { itemId: "starter-chest", name: "Starter chest", kind: "bundle", prices: { gems: 30 }, grants: { items: [{ itemId: "potion", count: 3 }, { itemId: "shield", count: 1 }] }, limit: 1 },
      ],
      ads: [{ adUnitId: "adunit-example", grants: { currencies: { gems: 5 } }, dailyCap: 10 }],
      giftPacks: [{ giftId: "gift-example", grants: { currencies: { gems: 20 }, items: [{ itemId: "potion", count: 2 }] } }],
      growthRewards: [
        { rewardId: "sidebar", grants: { currencies: { gems: 3 } } },
        { rewardId: "game_club", grants: { items: [{ itemId: "potion", count: 1 }] } },
      ],
    },
    "example catalog",
  );
  if ("problems" in result) throw new Error(result.problems.join("; "));
  return result.catalog;
}
