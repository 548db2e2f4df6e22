/**
 * The economy's store: each player's wallet (soft currencies) and inventory (item counts) per app,
 * kept as a ledger. Every change is one entry keyed by its source (appId, source, sourceId): the
 * first change with a key decides its outcome once and for all (applied, or refused because a
 * balance would go negative or a per-player limit would be passed); any later change with the same
 * key changes nothing and answers that outcome. Balances never go negative, whatever the number of
 * concurrent writers or processes, on every backend (FerretDB included: see the Mongo adapter).
 *
 * Also here: the operators' catalog documents, versioned per app (a new version is an insert that
 * exactly one writer of a given version wins), so every process can poll for the latest version;
 * every version is kept, with who saved it and when (the console's catalog history).
 */
import type { ErasureMarks } from "./erasure-marks";
import type { ItemCount } from "./reward-grants";

/** A player's economy at one point of their ledger. */
export interface EconomyState {
  /** Soft currencies, by currency id; a currency never held is absent (reads as 0). */
  balances: Record<string, number>;
  /** Item counts by item id; an item whose count fell to 0 is absent. */
  items: Record<string, number>;
  /** How many of each item the player has bought, all purchase kinds together (per-player limits). */
  purchased: Record<string, number>;
  /** Grants counted under a cap key (e.g. an ad unit's views of one day); absent until one is. */
  counters?: Record<string, number>;
}

export interface EconomyChange {
  appId: string;
  userId: string;
  /** What kind of thing caused the change (a RewardSource, or `purchase` for soft-currency buys). */
  source: string;
  /** Unique per (appId, source). */
  sourceId: string;
  /** Added to the balances: positive grants, negative spends. A result below 0 refuses the change. */
  currencies?: Record<string, number>;
  /** Added to the item counts (positive). */
  items?: ItemCount[];
  /** Counted towards per-player purchase limits: bought item id and how many. */
  purchase?: { itemId: string; quantity: number; limit?: number };
  /** Durable items: the change is refused if the player already owns one of these. */
  ownedOnce?: string[];
  /** Counted under `key`; the change is refused once `limit` changes were counted there (daily caps). */
  cap?: { key: string; limit: number };
  /** Kept with the entry (operator grants, season names). */
  reason?: string;
  /** The live event whose sale price or reward multiplier this change was made under (liveops). */
  liveEvent?: string;
  /** ISO time of the change. */
  at: string;
}

export type RefusalReason = "insufficient_funds" | "purchase_limit" | "already_owned" | "cap_reached";

export interface LedgerEntry {
  appId: string;
  userId: string;
  /** Position in the player's ledger, from 1. */
  seq: number;
  source: string;
  sourceId: string;
  outcome: "applied" | "refused";
  reason: RefusalReason | null;
  currencies: Record<string, number>;
  items: ItemCount[];
  purchase: { itemId: string; quantity: number } | null;
  note: string | null;
  /** The live event the change was made under (a sale price, a reward multiplier); absent when none. */
  liveEvent?: string;
  /** The player's economy after this entry (unchanged by a refused one). */
  state: EconomyState;
  at: string;
}

export interface ApplyResult {
  /** The entry that decided this source key (this call's or the first one's). */
  entry: LedgerEntry;
  /** True only for the one call that recorded the key first; replays get false. */
  first: boolean;
}

/** A stored catalog document of one app (its shape is the catalog settings' own; see settings/catalog.ts). */
export interface StoredCatalog {
  appId: string;
  version: number;
  body: unknown;
  /** Who saved it (operator name, "file" for the one loaded at start). */
  by: string;
  at: string;
}

/** A stored catalog version without its body: one line of the app's catalog history. */
export type CatalogVersionInfo = Omit<StoredCatalog, "body">;

export interface EconomyStore {
  /** Brings the schema to the current version; safe on every boot and from several processes. */
  migrate(): Promise<void>;
  /**
   * Applies the change once per (appId, source, sourceId). A key already recorded (for this user or
   * a concurrent caller) returns the recorded entry with `first: false`; a key recorded for another
   * user throws `source_conflict`.
   */
  apply(change: EconomyChange): Promise<ApplyResult>;
  /** The entry recorded for a source key, after finishing one a crash left half-written. */
  findBySource(appId: string, source: string, sourceId: string): Promise<LedgerEntry | null>;
  /** The player's current economy (empty when they never had one). */
  state(appId: string, userId: string): Promise<EconomyState>;
  /** The player's ledger, oldest first (export). */
  entries(appId: string, userId: string): Promise<LedgerEntry[]>;
  /** The apps in which the player has a ledger (export and erase without knowing the apps). */
  appsOf(userId: string): Promise<string[]>;
  /** Removes the player's ledger, wallet and inventory in every app (erase). */
  erase(userId: string): Promise<void>;
  /**
   * The marks of erases begun, in this store's database. Every change checks its user's mark after
   * it lands: a change of a marked user is removed with the rest of the ledger and refused.
   */
  readonly erasures: ErasureMarks;
  /** Saves a new catalog version: `expectedVersion` + 1; null when another writer took that version first. */
  saveCatalog(appId: string, expectedVersion: number, body: unknown, by: string, at: string): Promise<StoredCatalog | null>;
  /** The latest stored catalog of the app, or null when operators never stored one. */
  latestCatalog(appId: string): Promise<StoredCatalog | null>;
  /** The app's stored versions (every one is kept), newest first, at most `limit`; with `before`, only older ones. */
  listCatalogVersions(appId: string, options: { limit: number; before?: number }): Promise<CatalogVersionInfo[]>;
  /** One stored version with its body, or null. */
  findCatalog(appId: string, version: number): Promise<StoredCatalog | null>;
  close(): Promise<void>;
}

export const emptyState = (): EconomyState => ({ balances: {}, items: {}, purchased: {} });

/** Steps of a change a fault test can kill the process at (ECONOMY_CRASH_POINT). Test-only. */
export const ECONOMY_CRASH_POINTS = ["after_claim", "after_entry"] as const;
export type EconomyCrashPoint = (typeof ECONOMY_CRASH_POINTS)[number];
