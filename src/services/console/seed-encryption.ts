/**
 * The operator store with its TOTP seeds encrypted at rest (seed-cipher.ts): every seed written is
 * encrypted, every seed read decrypted, so the services see seeds and the database never does.
 * `upgradeSeeds` re-encrypts seeds stored in the clear or under an older key, at every open.
 */
import type { Operator, OperatorStore } from "../../core/ports/operator-store";
import type { Logger } from "../../logging/logger";
import { UNREADABLE_SEED, type SeedCipher } from "./seed-cipher";

export function encryptingSeeds(store: OperatorStore, cipher: SeedCipher, logger: Logger): OperatorStore {
  const open = (op: Operator | null): Operator | null => {
    if (!op?.totpSecret) return op;
    const totpSecret = cipher.decrypt(op.totpSecret, op.id);
    if (totpSecret === UNREADABLE_SEED) {
      logger.warn({ event: "operator_seed_unreadable", operator: op.name }, "no configured key decrypts this operator's TOTP seed (CONSOLE_SECRET_KEY changed?): reset it with npm run admin -- operator reset <name> --totp");
    }
    return { ...op, totpSecret };
  };
  return {
    migrate: async () => {
      await store.migrate();
      await upgradeSeeds(store, cipher);
    },
    createOperator: async (operator) => {
      const created = await store.createOperator({ ...operator, totpSecret: operator.totpSecret && cipher.encrypt(operator.totpSecret, operator.id) });
      return created === "name_taken" ? created : open(created)!;
    },
    findById: async (id) => open(await store.findById(id)),
    findByName: async (name) => open(await store.findByName(name)),
    list: async () => (await store.list()).map((op) => open(op)!),
    update: async (id, changes, at) => {
      // `ifSeed` compares stored values; through this wrapper nobody holds one, so it is not offered.
      const sealed = changes.totpSecret ? { ...changes, totpSecret: cipher.encrypt(changes.totpSecret, id) } : changes;
      return open(await store.update(id, sealed, at));
    },
    appendAudit: (entry) => store.appendAudit(entry),
    pruneAudit: (before, limit) => store.pruneAudit(before, limit),
    searchAudit: (query) => store.searchAudit(query),
    close: () => store.close(),
  };
}

/** Re-encrypts, under the current key, every seed stored in the clear or under an older key; answers how many. */
export async function upgradeSeeds(store: OperatorStore, cipher: SeedCipher): Promise<number> {
  let upgraded = 0;
  for (const op of await store.list()) {
    if (!op.totpSecret || !cipher.needsUpgrade(op.totpSecret)) continue;
    // The operator's own updatedAt: re-encrypting is not a change an operator made.
    // Only while the seed is still the one read: a reset meanwhile (a new seed) is never overwritten.
    const written = await store.update(op.id, { totpSecret: cipher.encrypt(cipher.decrypt(op.totpSecret, op.id), op.id) }, op.updatedAt, op.totpSecret);
    if (written) upgraded++;
  }
  return upgraded;
}
