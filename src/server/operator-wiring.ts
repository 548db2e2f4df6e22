/**
 * The operator store as the server and the admin CLI use it: on the configured database, with the
 * TOTP seeds encrypted at rest (CONSOLE_SECRET_KEY; services/console/seed-cipher.ts), and any seed
 * still in the clear or under an older key re-encrypted as it opens.
 */
import { createOperatorStore, type OperatorStoreOptions } from "../adapters/store/create-operator-store";
import type { AppConfig } from "../config/config";
import type { OperatorStore } from "../core/ports/operator-store";
import type { Logger } from "../logging/logger";
import { SeedCipher, type SeedKeys } from "../services/console/seed-cipher";
import { encryptingSeeds, upgradeSeeds } from "../services/console/seed-encryption";

export async function openOperatorStore(config: Pick<AppConfig, "store"> & { consoleSeedKeys: SeedKeys }, logger: Logger, options: OperatorStoreOptions = {}): Promise<OperatorStore> {
  const raw = await createOperatorStore(config.store, options);
  const cipher = new SeedCipher(config.consoleSeedKeys);
  try {
    const upgraded = await upgradeSeeds(raw, cipher);
    if (upgraded > 0) logger.info({ event: "operator_seeds_encrypted", upgraded }, "TOTP seeds re-encrypted under the current key");
  } catch (err) {
    await raw.close().catch(() => undefined);
    throw err;
  }
  return encryptingSeeds(raw, cipher, logger);
}
