/**
 * `npm run admin -- catalog …` and the economy's part of `grant`, `export` and `erase`: the
 * catalog versions in the store (every server process takes a new one within CATALOG_REFRESH_SEC),
 * an operator's grant of soft currency and items through the RewardGranter (source `operator`, once
 * per grant id), and a player's wallet, inventory and ledger per app.
 */
import fs from "node:fs";
import { createEconomyStore } from "../adapters/store/create-economy-store";
import type { AppConfig } from "../config/config";
import { checkCatalog } from "../core/catalog";
import { AppError } from "../core/errors";
import type { EconomyStore } from "../core/ports/economy-store";
import type { Logger } from "../logging/logger";
import { CatalogService } from "../services/economy/catalog-service";
import { EconomyRewards } from "../services/economy/reward-granter";

export interface AdminEconomy {
  store: EconomyStore;
  catalogs: CatalogService;
  rewards: EconomyRewards;
  close(): Promise<void>;
}

export async function openAdminEconomy(config: AppConfig, logger: Logger): Promise<AdminEconomy> {
  const store = await createEconomyStore(config.store);
  const catalogs = new CatalogService(store, config.economy.catalogs, config.apps.map((a) => a.key), logger);
  await catalogs.refresh();
  return { store, catalogs, rewards: new EconomyRewards(store), close: () => store.close() };
}

/** `catalog show|load|check`, for one app (`--app`, default `default`). */
export async function catalogCommand(
  open: () => Promise<AdminEconomy>,
  action: string,
  file: string | undefined,
  options: { app: string; by: string; expectVersion?: number },
  audit: Logger,
): Promise<unknown> {
  if (action === "check") {
    const checked = checkCatalog(checkFile(file, options.app).body, file!);
    if ("problems" in checked) throw new AppError("catalog_invalid", { message: checked.problems.join("; "), data: { problems: checked.problems } });
    return { ok: true, app: options.app, items: checked.catalog.items.length };
  }
  const economy = await open();
  if (action === "show") return economy.catalogs.get(options.app);
  if (action !== "load") throw new AppError("invalid_request", { message: "catalog needs show, load <file> or check <file>" });
  const { body } = checkFile(file, options.app);
  const saved = await economy.catalogs.replace(options.app, body, options.by, options.expectVersion);
  audit.info({ event: "admin_action", by: options.by, action: "catalog", app: options.app, version: saved.version }, "admin catalog");
  return saved;
}

function checkFile(file: string | undefined, app: string): { body: unknown } {
  if (!file) throw new AppError("invalid_request", { message: "catalog load and check need a file" });
  let body: unknown;
  try {
    body = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new AppError("invalid_request", { message: `cannot read ${file}: ${(err as Error).message}` });
  }
  // A file of several apps' catalogs ({"catalogs": {...}}, as CATALOG_FILE) gives the one of --app.
  if (body && typeof body === "object" && "catalogs" in body) body = (body as { catalogs: Record<string, unknown> }).catalogs[app];
  if (body === undefined) throw new AppError("invalid_request", { message: `${file} has no catalog for app ${app}` });
  return { body };
}

/** `--currency gems=10` and `--item sword=2` as a grant's parts; a problem as a string. */
export function parseGrantParts(currencies: string[], items: string[]): { currencies?: Record<string, number>; items?: Array<{ itemId: string; count: number }> } | string {
  const pairs = (list: string[], flag: string) => {
    const out: Array<[string, number]> = [];
    for (const entry of list) {
      const match = /^([A-Za-z0-9_.-]{1,64})=([1-9][0-9]{0,8})$/.exec(entry);
      if (!match) return `${flag} must be <id>=<whole number>, e.g. ${flag} gems=10`;
      out.push([match[1], Number(match[2])]);
    }
    return out;
  };
  const c = pairs(currencies, "--currency");
  const i = pairs(items, "--item");
  if (typeof c === "string") return c;
  if (typeof i === "string") return i;
  return {
    ...(c.length ? { currencies: Object.fromEntries(c) } : {}),
    ...(i.length ? { items: i.map(([itemId, count]) => ({ itemId, count })) } : {}),
  };
}

