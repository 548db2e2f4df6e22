/**
 * Each app's live catalog: the settings' one (version 0) until an operator stores a newer version
 * (`admin catalog`, the console). Every process reads the latest stored version at start and then
 * every CATALOG_REFRESH_SEC, so an operator's change reaches every process without a restart; a
 * version is an insert that one writer wins, so two operators never overwrite each other unseen.
 */
import { AppError } from "../../core/errors";
import { checkCatalog, emptyCatalog, onSale, type Catalog, type CatalogItem } from "../../core/catalog";
import type { CatalogVersionInfo, EconomyStore } from "../../core/ports/economy-store";
import type { Logger } from "../../logging/logger";

export interface VersionedCatalog {
  version: number;
  catalog: Catalog;
}

/** One version as the history shows it: version 0 is the settings' catalog (no author, no time). */
export interface CatalogVersion {
  version: number;
  by: string | null;
  at: string | null;
  catalog: unknown;
}

/** How many stored versions a process keeps parsed for deliveries of orders priced under them. */
const KEPT_VERSIONS = 32;

export class CatalogService {
  private readonly live = new Map<string, VersionedCatalog>();
  /** Stored versions read for orders priced under them ("<app> <version>"); versions never change. */
  private readonly past = new Map<string, Catalog>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<EconomyStore, "latestCatalog" | "saveCatalog" | "listCatalogVersions" | "findCatalog">,
    private readonly base: Readonly<Record<string, Catalog>>,
    private readonly appKeys: readonly string[],
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    for (const app of appKeys) this.live.set(app, { version: 0, catalog: base[app] ?? emptyCatalog() });
  }

  /** Reads the stored versions now, then every `refreshMs`. */
  async start(refreshMs: number): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch((err: unknown) => this.logger.warn({ err, event: "catalog_refresh_failed" }, "could not read the stored catalogs; the current ones stay"));
    }, refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Takes every app's latest stored version that is newer than the one in use. */
  async refresh(): Promise<void> {
    for (const app of this.appKeys) {
      const stored = await this.store.latestCatalog(app);
      const current = this.live.get(app);
      if (!stored || (current && stored.version <= current.version)) continue;
      const checked = checkCatalog(stored.body, `stored catalog of ${app} v${stored.version}`);
      if ("problems" in checked) {
        this.logger.error({ event: "catalog_invalid", app, version: stored.version, problems: checked.problems }, "a stored catalog is invalid; the previous one stays");
        continue;
      }
      this.live.set(app, { version: stored.version, catalog: checked.catalog });
      this.logger.info({ event: "catalog_changed", app, version: stored.version }, "catalog version in use");
    }
  }

  get(app: string): VersionedCatalog {
    return this.live.get(app) ?? { version: 0, catalog: emptyCatalog() };
  }

  /** The item when it exists and is on sale now (in `catalog` when given: one version read once). */
  itemOnSale(app: string, itemId: string, catalog: Catalog = this.get(app).catalog): CatalogItem | undefined {
    const item = catalog.items.find((i) => i.itemId === itemId);
    return item && onSale(item, this.now()) ? item : undefined;
  }

  /**
   * The item as version `version` of the app's catalog listed it (an order priced under it is
   * delivered by it): the live one, the settings' (0), or a stored one; undefined when that version
   * did not list it or is not stored.
   */
  async itemAt(app: string, version: number, itemId: string): Promise<CatalogItem | undefined> {
    const live = this.get(app);
    if (live.version === version) return live.catalog.items.find((i) => i.itemId === itemId);
    const key = `${app} ${version}`;
    let catalog = version === 0 ? (this.base[app] ?? emptyCatalog()) : this.past.get(key);
    if (!catalog) {
      const stored = await this.store.findCatalog(app, version);
      if (!stored) return undefined;
      const checked = checkCatalog(stored.body, `stored catalog of ${app} v${version}`);
      if ("problems" in checked) throw new Error(checked.problems.join("; "));
      catalog = checked.catalog;
      if (this.past.size >= KEPT_VERSIONS) this.past.delete(this.past.keys().next().value as string);
      this.past.set(key, catalog);
    }
    return catalog.items.find((i) => i.itemId === itemId);
  }

  /** The item whatever its sale window (delivery of what was already paid). */
  item(app: string, itemId: string): CatalogItem | undefined {
    return this.get(app).catalog.items.find((i) => i.itemId === itemId);
  }

  /**
   * Refuses an operator's grant, debit or mail of a currency or item the app's catalog does not
   * list (a typo, `poton`), naming each: nothing in the game would show, spend or sell it. Reads the
   * stored versions first, so a version just stored on another process counts.
   */
  async refuseUnknown(app: string, parts: { currencies?: Record<string, number>; items?: ReadonlyArray<{ itemId: string }> }): Promise<void> {
    await this.refresh();
    const { catalog } = this.get(app);
    const currencies = Object.keys(parts.currencies ?? {}).filter((id) => !catalog.currencies.some((c) => c.currencyId === id));
    const items = [...new Set((parts.items ?? []).map((i) => i.itemId))].filter((id) => !catalog.items.some((i) => i.itemId === id));
    if (currencies.length === 0 && items.length === 0) return;
    const named = [...currencies.map((id) => `currency "${id}"`), ...items.map((id) => `item "${id}"`)];
    throw new AppError("not_in_catalog", { message: `Not in the catalog of app ${app}: ${named.join(", ")}`, data: { app, currencies, items } });
  }

  /**
   * Stores `body` as the app's next version, after checking it (every problem at once: 422
   * catalog_invalid). `expectedVersion` guards against overwriting a version the operator has not seen.
   */
  async replace(app: string, body: unknown, by: string, expectedVersion?: number): Promise<VersionedCatalog> {
    if (!this.appKeys.includes(app)) throw new AppError("invalid_request", { message: `Unknown app ${app} (apps: ${this.appKeys.join(", ")})` });
    const checked = checkCatalog(body, `catalog of ${app}`);
    if ("problems" in checked) throw new AppError("catalog_invalid", { message: checked.problems.join("; "), data: { problems: checked.problems } });
    await this.refresh();
    const base = expectedVersion ?? this.get(app).version;
    const saved = await this.store.saveCatalog(app, base, checked.catalog, by, new Date(this.now()).toISOString());
    if (!saved) throw new AppError("version_conflict", { data: { app, version: base } });
    const next = { version: saved.version, catalog: checked.catalog };
    this.live.set(app, next);
    this.logger.info({ event: "catalog_changed", app, version: saved.version, by }, "catalog changed by an operator");
    return next;
  }

  /** The app's stored versions, newest first (every one is kept). */
  history(app: string, options: { limit: number; before?: number }): Promise<CatalogVersionInfo[]> {
    return this.store.listCatalogVersions(app, options);
  }

  /** One version as stored; 0 is the settings' catalog. */
  async version(app: string, version: number): Promise<CatalogVersion> {
    if (version === 0) return { version: 0, by: null, at: null, catalog: this.base[app] ?? emptyCatalog() };
    const stored = await this.store.findCatalog(app, version);
    if (!stored) throw new AppError("catalog_version_not_found", { data: { app, version } });
    return { version: stored.version, by: stored.by, at: stored.at, catalog: stored.body };
  }

  /**
   * Stores an older version's content as the next version (checked again, as any new version is):
   * going back never rewrites history, it adds to it.
   */
  async restore(app: string, version: number, by: string, expectedVersion?: number): Promise<VersionedCatalog> {
    const old = await this.version(app, version);
    return this.replace(app, old.catalog, by, expectedVersion);
  }
}
