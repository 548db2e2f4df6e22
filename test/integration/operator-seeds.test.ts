/**
 * Operators' TOTP seeds at rest, on every database: what is stored (read straight from the table or
 * collection) never contains the seed; the server and CLI read it back; a seed an earlier version
 * stored in the clear still works and is encrypted at the next open; a key change keeps seeds
 * readable through CONSOLE_PREVIOUS_SECRET_KEYS; a seed copied to another operator opens nothing.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import SqliteDatabase from "better-sqlite3";
import mongoose from "mongoose";
import { Client } from "pg";
import type { AppConfig } from "../../src/config/config";
import { createOperatorStore } from "../../src/adapters/store/create-operator-store";
import { createLogger } from "../../src/logging/logger";
import { openOperatorStore } from "../../src/server/operator-wiring";
import { OperatorAccounts } from "../../src/services/console/operator-accounts";
import { storeImplementations } from "../support/store-configs";
import { UNREADABLE_SEED, type SeedKeys } from "../../src/services/console/seed-cipher";
import { newTotpSecret, totpAt, verifyTotp } from "../../src/services/console/totp";

type StoreConfig = AppConfig["store"];

/** Every stored operator row or document, as JSON text, read around the store. */
async function rawRows(config: StoreConfig): Promise<string[]> {
  if (config.kind === "sqlite") {
    const db = new SqliteDatabase(config.path, { readonly: true });
    try {
      return db.prepare("select * from console_operators").all().map((row) => JSON.stringify(row));
    } finally {
      db.close();
    }
  }
  if (config.kind === "postgres") {
    const client = new Client({ connectionString: config.url });
    await client.connect();
    try {
      return (await client.query("select * from console_operators")).rows.map((row) => JSON.stringify(row));
    } finally {
      await client.end();
    }
  }
  const connection = await mongoose.createConnection(config.url, { serverSelectionTimeoutMS: 5000 }).asPromise();
  try {
    return (await connection.collection("console_operators").find({}).toArray()).map((doc) => JSON.stringify(doc));
  } finally {
    await connection.close();
  }
}

const logger = createLogger({ level: "silent" });
const keys = (current: string, ...previous: string[]): SeedKeys => ({ current: `console:${current}`, previous: previous.map((k) => `console:${k}`) });
const K1 = "first-console-key-0123456789abcdef0123456789";
const K2 = "second-console-key-0123456789abcdef012345678";

for (const impl of storeImplementations("operator-seeds")) {
  describe(`operator TOTP seeds at rest — ${impl.name}`, function () {
    this.timeout(30_000);
    let config: StoreConfig;
    let release: () => Promise<void>;
    const open = (seedKeys: SeedKeys) => openOperatorStore({ store: config, consoleSeedKeys: seedKeys }, logger);
    const stored = async (seed: string) => (await rawRows(config)).filter((row) => row.includes(seed));

    before(async () => ({ config, release } = await impl.prepare()));
    after(async () => release?.());

    it("stores no seed in the clear; reads it back; a copy in another operator's row opens nothing", async () => {
      const store = await open(keys(K1));
      try {
        const accounts = new OperatorAccounts(store, { production: false });
        const a = await accounts.add(`seed-a-${crypto.randomBytes(3).toString("hex")}`, "admin", { totp: true });
        const b = await accounts.add(`seed-b-${crypto.randomBytes(3).toString("hex")}`, "admin", { totp: true });
        const seedA = new URL(a.totpUri!).searchParams.get("secret")!;
        assert.deepEqual(await stored(seedA), [], "no row or document holds the seed");
        const rawStore = await createOperatorStore(config);
        try {
          const rawA = (await rawStore.findByName(a.operator.name))!;
          assert.match(rawA.totpSecret!, /^enc1:/);
          assert.notEqual(verifyTotp(seedA, totpAt(seedA, Date.now()), Date.now()), null);
          assert.equal((await store.findByName(a.operator.name))!.totpSecret, seedA, "the service reads the seed");
          // A value copied from a's row to b's does not decrypt for b.
          await rawStore.update(b.operator.id, { totpSecret: rawA.totpSecret }, rawA.updatedAt);
          assert.equal((await store.findByName(b.operator.name))!.totpSecret, UNREADABLE_SEED);
          assert.equal(verifyTotp(UNREADABLE_SEED, "123456", Date.now()), null, "no code opens it (and nothing throws)");
        } finally {
          await rawStore.close();
        }
      } finally {
        await store.close();
      }
    });

    it("encrypts a seed an earlier version stored in the clear at the next open, then re-encrypts under a new key", async () => {
      const seed = newTotpSecret();
      const id = crypto.randomUUID();
      const name = `legacy-${crypto.randomBytes(3).toString("hex")}`;
      const rawStore = await createOperatorStore(config);
      try {
        await rawStore.createOperator({ id, name, role: "admin", passwordHash: "scrypt$x", mustChangePassword: false, totpSecret: seed, createdAt: new Date().toISOString() });
        assert.equal((await stored(seed)).length, 1, "in the clear, as an earlier version stored it");

        const first = await open(keys(K1));
        assert.equal((await first.findByName(name))!.totpSecret, seed);
        await first.close();
        assert.deepEqual(await stored(seed), [], "encrypted at the open");
        const underK1 = (await rawStore.findByName(name))!.totpSecret!;

        const rotated = await open(keys(K2, K1));
        assert.equal((await rotated.findByName(name))!.totpSecret, seed, "read through the previous key");
        await rotated.close();
        const underK2 = (await rawStore.findByName(name))!.totpSecret!;
        assert.notEqual(underK2.split(":")[1], underK1.split(":")[1], "re-encrypted under the new key");

        const onlyK2 = await open(keys(K2));
        assert.equal((await onlyK2.findByName(name))!.totpSecret, seed, "the old key is no longer needed");
        await onlyK2.close();
        const lost = await open(keys(K1));
        assert.equal((await lost.findByName(name))!.totpSecret, UNREADABLE_SEED, "a key that never encrypted it opens nothing");
        assert.equal((await rawStore.findByName(name))!.totpSecret, underK2, "and an unreadable seed is left as it is");
        await lost.close();
      } finally {
        await rawStore.close();
      }
    });
  });
}
