/**
 * The erase fence (core/ports/erasure-marks.ts, adapters/store/erase-fence.ts) on every store:
 * a write of a player whose erase has begun that lands after the erase's deletes (the request was
 * verified before the sessions ended) is removed with the rest and refused 403 `user_disabled`, on
 * another connection (process) than the one that marked; other players are untouched. And an erase
 * a kill -9 stopped right after its mark is finished by the sweep, which forgets the mark a day on.
 * Without the fence the late writes stayed: entries, claims, an ad view and a mail claim of a user
 * that no longer exists (the state issue 48 item 6 found on PostgreSQL over two processes).
 */
import assert from "node:assert/strict";
import mongoose from "mongoose";
import pino from "pino";
import { createEconomyStore } from "../../src/adapters/store/create-economy-store";
import { createRewardStores, type RewardStores } from "../../src/adapters/store/create-reward-stores";
import type { AppConfig } from "../../src/config/config";
import type { EconomyStore } from "../../src/core/ports/economy-store";
import { EraseSweep } from "../../src/services/erase-sweep";
import { storeImplementations } from "../support/store-configs";

const APP = "default";
const at = new Date().toISOString();
let seq = 0;
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${seq++}`;
const grant = (userId: string, sourceId = unique("g")) => ({ appId: APP, userId, source: "operator", sourceId, currencies: { gems: 5 }, at });
const view = (userId: string) => ({ appId: APP, transactionId: unique("tx"), userId, adUnitId: "adunit-example", day: "2026-11-28", watchId: unique("w"), createdAt: at });
const mail = (userId: string | null) => ({
  mailId: unique("m"),
  appId: APP,
  userId,
  title: "gift",
  body: "",
  attachments: { currencies: { gems: 1 } },
  sender: "ops",
  createdAt: at,
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
});

/**
 * On MongoDB some documents carry the player only in their `_id` ("<app>:<user>:…": ad slots and
 * watch keys, the ledger head), out of reach of the stores' own reads: counted here directly.
 */
async function keyedByUser(config: AppConfig["store"], userId: string): Promise<Record<string, number>> {
  if (config.kind !== "mongodb") return {};
  const connection = await mongoose.createConnection(config.url, { serverSelectionTimeoutMS: 5000 }).asPromise();
  try {
    const found: Record<string, number> = {};
    for (const name of ["ad_slots", "ad_watches", "economy_heads"]) {
      const n = await connection.db!.collection(name).countDocuments({ _id: { $regex: `:${encodeURIComponent(userId)}:|:${encodeURIComponent(userId)}$` } } as never);
      if (n > 0) found[name] = n;
    }
    return found;
  } finally {
    await connection.close();
  }
}

async function refusedAsErased(write: Promise<unknown>): Promise<void> {
  await assert.rejects(write, (err: { code?: string; status?: number }) => err.code === "user_disabled" && err.status === 403);
}

for (const impl of storeImplementations("erase-fence")) {
  describe(`erase fence: ${impl.name}`, function () {
    this.timeout(60_000);
    let release: () => Promise<void>;
    let marking: EconomyStore;
    let economy: EconomyStore;
    let rewards: RewardStores;
    let config: AppConfig["store"];

    before(async () => {
      const prepared = await impl.prepare();
      config = prepared.config;
      release = prepared.release;
      marking = await createEconomyStore(prepared.config);
      // Another connection: the eraser's process and the writer's are not the same.
      economy = await createEconomyStore(prepared.config);
      rewards = await createRewardStores(prepared.config);
    });
    after(async () => {
      await rewards?.close();
      await economy?.close();
      await marking?.close();
      await release?.();
    });

    async function left(userId: string) {
      const records = await rewards.recordsOf(userId);
      return {
        entries: (await economy.entries(APP, userId)).length,
        apps: await economy.appsOf(userId),
        mail: records.mail.length,
        claims: records.claims.length,
        adViews: records.adViews.length,
      };
    }
    const nothing = { entries: 0, apps: [], mail: 0, claims: 0, adViews: 0 };

    it("writes that land after the erase's deletes are removed and refused; another player's stay", async () => {
      const [gone, other] = [unique("gone"), unique("other")];
      await economy.apply(grant(gone));
      await economy.apply(grant(other));
      const broadcast = mail(null);
      await rewards.send(broadcast);

      // The erase: marked, then every store's deletes.
      await marking.erasures.mark(gone, at);
      await marking.erase(gone);
      await rewards.eraseUser(gone);
      await marking.erasures.finish(gone, at);

      // Requests verified before the sessions ended land now.
      await refusedAsErased(economy.apply(grant(gone)));
      await refusedAsErased(economy.apply({ appId: APP, userId: gone, source: "purchase", sourceId: unique("p"), currencies: { gems: -1 }, at }));
      await refusedAsErased(rewards.record(view(gone), 5));
      await refusedAsErased(rewards.send(mail(gone)));
      await refusedAsErased(rewards.markClaimed({ appId: APP, mailId: broadcast.mailId, userId: gone, claimedAt: at }));
      assert.deepEqual(await left(gone), nothing);
      assert.deepEqual(await economy.state(APP, gone), { balances: {}, items: {}, purchased: {} });

      // The other player writes on as before.
      assert.equal((await economy.apply(grant(other))).entry.state.balances.gems, 10);
      assert.equal((await rewards.record(view(other), 5)).created, true);
      assert.equal((await rewards.markClaimed({ appId: APP, mailId: broadcast.mailId, userId: other, claimedAt: at })).userId, other);
      assert.deepEqual(await left(other), { entries: 2, apps: [APP], mail: 0, claims: 1, adViews: 1 });
    });

    it("ad views and changes written while the erase runs (on another connection) leave nothing behind", async () => {
      // The erase walks the player's views and apps; views and ledger entries written meanwhile, on
      // the writer's connection, must all be gone (slots, watch keys and the ledger head with them)
      // once every write and the erase have settled. Before slots, watch keys and heads carried
      // `userId`, MongoDB kept ad_slots and ad_watches (and heads) the erase had not reached.
      const erasing = await createRewardStores(config);
      try {
        for (let round = 0; round < 3; round++) {
          const gone = unique("racing");
          for (let i = 0; i < 6; i++) await Promise.all([rewards.record(view(gone), 50), economy.apply(grant(gone))]);
          await marking.erasures.mark(gone, at);
          const outcome = (write: Promise<unknown>) => write.then(() => "kept", (err: { code?: string }) => err.code);
          const writes = Array.from({ length: 12 }, (_, i) => outcome(i % 2 ? rewards.record(view(gone), 50) : economy.apply(grant(gone))));
          await marking.erase(gone);
          await erasing.eraseUser(gone);
          await marking.erasures.finish(gone, at);
          const outcomes = await Promise.all(writes);
          assert.deepEqual(outcomes.filter((o) => o !== "user_disabled"), [], "a write that landed after the mark was not refused");
          assert.deepEqual({ left: await left(gone), keyed: await keyedByUser(config, gone) }, { left: nothing, keyed: {} });
        }
      } finally {
        await erasing.close();
      }
    });

    it("MongoDB: the erase removes the ledger head even when another erase already deleted the claims it was found by", async function () {
      if (config.kind !== "mongodb") this.skip();
      // The state a change leaves when an erase's claims deleteMany took its claim after the
      // erase's lookup, and the change raised the head after: head, no claim. Before heads carried
      // `userId` the change's own fence check found no app to erase, and the head stayed.
      const gone = unique("headless");
      await economy.apply(grant(gone));
      const connection = await mongoose.createConnection((config as { url: string }).url, { serverSelectionTimeoutMS: 5000 }).asPromise();
      try {
        await connection.db!.collection("economy_claims").deleteMany({ userId: gone });
      } finally {
        await connection.close();
      }
      await marking.erase(gone);
      assert.deepEqual(await keyedByUser(config, gone), {});
    });

    it("an erase stopped right after its mark (kill -9) is finished by the sweep; the mark is forgotten a day later", async () => {
      const gone = unique("crashed");
      await economy.apply(grant(gone));
      await rewards.record(view(gone), 5);
      await marking.erasures.mark(gone, at);

      const logger = pino({ level: "silent" });
      const runErase = async (userId: string) => {
        await marking.erase(userId);
        await rewards.eraseUser(userId);
        return true;
      };
      const report = await new EraseSweep(marking.erasures, { runErase }, logger).runOnce();
      assert.equal(report.finished, 1);
      assert.deepEqual(await left(gone), nothing);
      assert.equal(await economy.erasures.isMarked(gone), true, "the mark stays a while: late writes still check it");
      assert.deepEqual(await economy.erasures.markedAmong([`${gone}-not`, gone, "nobody"]), [gone], "one read for a batch of players");
      assert.deepEqual(await economy.erasures.markedAmong([]), []);
      await refusedAsErased(economy.apply(grant(gone)));

      const dayLater = Date.now() + 25 * 3_600_000;
      const later = await new EraseSweep(marking.erasures, { runErase }, logger, { now: () => dayLater }).runOnce();
      assert.ok(later.forgotten >= 1);
      assert.equal(await economy.erasures.isMarked(gone), false);
      assert.deepEqual(await economy.erasures.markedAmong([gone]), []);
    });
  });
}
