/** The admin CLI's view of the customer-service messages (docs/growth.md): its export and erase parts. */
import type { AppConfig } from "../config/config";
import { createSupportStore } from "../adapters/store/create-support-store";
import type { SupportMessage } from "../core/ports/support-messages";

async function withSupportStore<T>(config: AppConfig, work: (store: Awaited<ReturnType<typeof createSupportStore>>) => Promise<T>): Promise<T> {
  const store = await createSupportStore(config.store);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** `admin export`'s part: every message of the player, theirs and the operators' replies. */
export function exportSupportMessages(config: AppConfig, userId: string): Promise<SupportMessage[]> {
  return withSupportStore(config, (store) => store.listByUser(userId));
}

/** `admin erase`'s part. */
export async function eraseSupportMessages(config: AppConfig, userId: string): Promise<void> {
  await withSupportStore(config, (store) => store.eraseUser(userId));
}
