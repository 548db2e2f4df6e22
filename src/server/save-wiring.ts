/**
 * The cloud saves' part of the composition root (container.ts, the admin CLI): the store on the
 * user store's database (sharing its SQLite connection when this process has one open) and the
 * service every edge and server code writes through.
 */
import { createSaveStore } from "../adapters/store/create-save-store";
import type { AppConfig } from "../config/config";
import { SaveService } from "../services/saves/save-service";

export async function buildSaves(config: AppConfig, now?: () => number): Promise<{ saves: SaveService; close(): Promise<void> }> {
  const store = await createSaveStore(config.store);
  return { saves: new SaveService(store, config.saves, now), close: () => store.close() };
}
