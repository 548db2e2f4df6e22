/**
 * One contract for the AdViewStore and MailStore ports, run over every database they speak: the
 * daily cap of rewarded ads and "mail to all is one record" rest on these. Each suite gets its own
 * empty database; each test its own app, so tests never depend on one another.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppConfig } from "../../src/config/config";
import type { NewAdView } from "../../src/core/ports/ad-views";
import type { Mail } from "../../src/core/ports/mail-store";
import { createRewardStores, type RewardStores } from "../../src/adapters/store/create-reward-stores";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";

interface Implementation {
  name: string;
  prepare(): Promise<{ config: AppConfig["store"]; release(): Promise<void> }>;
}

const implementations: Implementation[] = [
  {
    name: "SQLite",
    async prepare() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-reward-stores-"));
      return { config: { kind: "sqlite", path: path.join(dir, "data", "users.sqlite"), synchronous: "FULL" }, release: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
if (testDatabaseUrl) {
  const baseUrl = testDatabaseUrl;
  implementations.push({
    name: "PostgreSQL",
    async prepare() {
      const db = await createTestDatabase(baseUrl);
      return { config: { kind: "postgres", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 2000 }, release: () => db.drop() };
    },
  });
}
if (testMongoUrl) {
  const baseUrl = testMongoUrl;
  implementations.push({
    name: "MongoDB",
    async prepare() {
      const db = createTestMongoDatabase(baseUrl);
      return { config: { kind: "mongodb", url: db.url, connectTimeoutMs: 1000, acquireTimeoutMs: 3000, queryTimeoutMs: 5000 }, release: () => db.drop() };
    },
  });
}

const id = () => crypto.randomBytes(6).toString("hex");
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();

function view(appId: string, overrides: Partial<NewAdView> = {}): NewAdView {
  return { appId, transactionId: `tx-${id()}`, userId: "u1", adUnitId: "adunit-1", day: "2026-01-01", watchId: null, createdAt: at(0), ...overrides };
}

function mail(appId: string, overrides: Partial<Mail> = {}): Mail {
  return {
    mailId: `m-${id()}`,
    appId,
    userId: null,
    title: "Sorry",
    body: "For the outage",
    attachments: { currencies: { gold: 100 }, items: [{ itemId: "sword", count: 1 }] },
    sender: "ops",
    createdAt: at(0),
    expiresAt: at(86_400_000),
    ...overrides,
  };
}

for (const impl of implementations) {
  describe(`reward stores contract: ${impl.name}`, function () {
    this.timeout(60_000);
    let stores: RewardStores;
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      stores = await createRewardStores(prepared.config);
    });
    after(async () => {
      await stores?.close();
      await release?.();
    });

    it("records a view in the first free slot and returns it unchanged on a replay", async () => {
      const app = `app-${id()}`;
      const first = await stores.record(view(app, { transactionId: "t1", watchId: "w1" }), 3);
      assert.equal(first.created, true);
      assert.equal(first.view.slot, 1);
      const second = await stores.record(view(app, { transactionId: "t2" }), 3);
      assert.equal(second.view.slot, 2);
      const replay = await stores.record(view(app, { transactionId: "t1", userId: "someone-else" }), 3);
      assert.equal(replay.created, false);
      assert.equal(replay.view.userId, "u1");
      assert.equal(replay.view.slot, 1);
      assert.deepEqual((await stores.findByWatch(app, "u1", "w1"))?.transactionId, "t1");
      assert.equal(await stores.findByWatch(app, "u2", "w1"), undefined);
    });

    it("keeps the daily cap under 30 concurrent views, and each day and ad unit has its own slots", async () => {
      const app = `app-${id()}`;
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => stores.record(view(app, { transactionId: `c${i}` }), 5)));
      const slots = results.map((r) => r.view.slot).filter((s) => s !== null).sort();
      assert.deepEqual(slots, [1, 2, 3, 4, 5]);
      assert.equal(results.filter((r) => r.view.slot === null).length, 25);
      assert.ok(results.every((r) => r.created));
      assert.equal((await stores.record(view(app, { transactionId: "next-day", day: "2026-01-02" }), 5)).view.slot, 1);
      assert.equal((await stores.record(view(app, { transactionId: "other-unit", adUnitId: "adunit-2" }), 5)).view.slot, 1);
      // A capped view stays capped on a replay.
      const capped = results.find((r) => r.view.slot === null)!.view;
      assert.equal((await stores.record(view(app, { transactionId: capped.transactionId }), 5)).view.slot, null);
    });

    it("20 concurrent replays of one transaction take one slot", async () => {
      const app = `app-${id()}`;
      const results = await Promise.all(Array.from({ length: 20 }, () => stores.record(view(app, { transactionId: "same" }), 3)));
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.ok(results.every((r) => r.view.slot === 1));
      assert.equal((await stores.record(view(app, { transactionId: "another" }), 3)).view.slot, 2);
      assert.equal((await stores.listForUser(app, "u1")).length, 2);
    });

    it("mail to all is one record every player lists; a player's mail only they list; expired mail is gone", async () => {
      const app = `app-${id()}`;
      const broadcast = await stores.send(mail(app, { createdAt: at(1) }));
      assert.equal(broadcast.created, true);
      await stores.send(mail(app, { userId: "alice", title: "Just you", createdAt: at(2) }));
      await stores.send(mail(app, { userId: "alice", expiresAt: at(10), createdAt: at(3) }));
      await stores.send(mail(`other-${id()}`, { createdAt: at(4) }));
      const alice = await stores.listFor(app, "alice", at(100), 50);
      assert.deepEqual(alice.map((m) => m.title), ["Just you", "Sorry"]);
      assert.deepEqual(alice[1].attachments, { currencies: { gold: 100 }, items: [{ itemId: "sword", count: 1 }] });
      const bob = await stores.listFor(app, "bob", at(100), 50);
      assert.deepEqual(bob.map((m) => m.mailId), [broadcast.mail.mailId]);
      assert.equal((await stores.send(mail(app, { mailId: broadcast.mail.mailId, title: "changed" }))).mail.title, "Sorry");
      assert.equal(await stores.get(`x-${id()}`, broadcast.mail.mailId), undefined);
    });

    it("exports and erases one player's mail, claims and ad views, in every app; mail to all stays", async () => {
      const app = `app-${id()}`;
      const user = `gone-${id()}`;
      const broadcast = (await stores.send(mail(app))).mail;
      await stores.send(mail(app, { userId: user, title: "Personal" }));
      await stores.markClaimed({ appId: app, mailId: broadcast.mailId, userId: user, claimedAt: at(5) });
      await stores.record(view(app, { userId: user, transactionId: `t-${id()}`, watchId: "w-gone" }), 2);
      await stores.record(view(`other-${id()}`, { userId: user, transactionId: `t-${id()}` }), 2);
      const records = await stores.recordsOf(user);
      assert.deepEqual([records.mail.map((m) => m.title), records.claims.length, records.adViews.length], [["Personal"], 1, 2]);
      await stores.eraseUser(user);
      assert.deepEqual(await stores.recordsOf(user), { mail: [], claims: [], adViews: [] });
      assert.equal(await stores.findByWatch(app, user, "w-gone"), undefined);
      assert.equal((await stores.get(app, broadcast.mailId))?.mailId, broadcast.mailId);
    });

    it("a claim is kept once, whatever the number of concurrent marks", async () => {
      const app = `app-${id()}`;
      const sent = (await stores.send(mail(app))).mail;
      const marks = await Promise.all(Array.from({ length: 20 }, (_, i) => stores.markClaimed({ appId: app, mailId: sent.mailId, userId: "carol", claimedAt: at(i) })));
      assert.ok(marks.every((m) => m.claimedAt === marks[0].claimedAt));
      assert.equal((await stores.claimsOf(app, "carol", [sent.mailId, "missing"])).length, 1);
      assert.equal((await stores.claimsOf(app, "dave", [sent.mailId])).length, 0);
    });
  });
}
