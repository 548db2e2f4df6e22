/**
 * The reward sources' process killed (SIGKILL, through the test-only REWARD_CRASH_POINT) at each
 * step: after an ad view was recorded and before its grant, before a gift pack's grant (pushed, or a
 * Douyin gift code the platform confirmed), after a mail's grant and before its claim was marked. After a restart on the same store (SQLite,
 * PostgreSQL, MongoDB on FerretDB) the platform's retry (or the player's repeat) lands exactly one
 * grant. The grants are kept by test/support/reward-crash-child.ts in a file that survives the kill.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import type { AppConfig } from "../../src/config/config";
import { adSignature, encryptAdReward } from "../../src/platforms/wechat/wechat-ad-reward";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";
import { ROOT } from "../support/build";
import { createTestMongoDatabase } from "../support/mongo";
import { createTestDatabase } from "../support/postgres";
import { testDatabaseUrl, testMongoUrl } from "../support/services";
import { CRASH_CHILD_APPS } from "../support/reward-crash-child";
import { sealedGiftPush } from "../support/wechat-gift-pushes";
import { compiledEntry } from "../support/compiled-source";


interface Implementation {
  name: string;
  prepare(tmp: string): Promise<{ config: AppConfig["store"]; release(): Promise<void> }>;
}
const implementations: Implementation[] = [
  { name: "SQLite", prepare: async (tmp) => ({ config: { kind: "sqlite", path: path.join(tmp, "rewards.sqlite"), synchronous: "FULL" }, release: async () => undefined }) },
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

interface Child {
  base: string;
  process: ChildProcess;
  exited: Promise<NodeJS.Signals | null>;
}

async function startChild(tmp: string, store: AppConfig["store"], crashPoint?: string): Promise<Child> {
  const portFile = path.join(tmp, `port-${Date.now()}-${Math.random()}`);
  // node itself runs the compiled child (no CLI that runs the script in a child of its own): the kill hits the server.
  const child = spawn(process.execPath, ["--enable-source-maps", compiledEntry("test/support/reward-crash-child.ts")], {
    cwd: ROOT,
    env: { ...process.env, REWARD_STORE: JSON.stringify(store), GRANTS_FILE: path.join(tmp, "grants.sqlite"), PORT_FILE: portFile, ...(crashPoint ? { REWARD_CRASH_POINT: crashPoint } : {}) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(portFile) || fs.readFileSync(portFile, "utf8") === "") {
    if (Date.now() > deadline) throw new Error("the child did not start");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { base: `http://127.0.0.1:${fs.readFileSync(portFile, "utf8")}`, process: child, exited };
}

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }).then(
    async (r) => ({ status: r.status, body: (await r.json().catch(() => undefined)) as Record<string, unknown> | undefined }),
    () => ({ status: 0, body: undefined }),
  );

for (const impl of implementations) {
  describe(`reward sources survive SIGKILL at each step: ${impl.name}`, function () {
    this.timeout(120_000);
    let tmp: string;
    let store: AppConfig["store"];
    let release: () => Promise<void>;
    const children: Child[] = [];

    before(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-reward-faults-"));
      const prepared = await impl.prepare(tmp);
      store = prepared.config;
      release = prepared.release;
    });
    afterEach(() => {
      for (const c of children.splice(0)) c.process.kill("SIGKILL");
    });
    after(async () => {
      await release?.();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    const grantsOf = (source: string, sourceId: string) => {
      const db = new Database(path.join(tmp, "grants.sqlite"), { readonly: true });
      try {
        return (db.prepare("select count(*) as n from grants where source = ? and source_id like ?").get(source, `${sourceId}%`) as { n: number }).n;
      } finally {
        db.close();
      }
    };

    async function crashThenRetry(point: string, send: (base: string) => Promise<{ status: number; body?: Record<string, unknown> }>) {
      const crashing = await startChild(tmp, store, point);
      children.push(crashing);
      const first = await send(crashing.base);
      assert.equal(first.status, 0, "the process died before answering");
      assert.equal(await crashing.exited, "SIGKILL");
      const restarted = await startChild(tmp, store);
      children.push(restarted);
      return [await send(restarted.base), await send(restarted.base)];
    }

    it("after_view_recorded: WeChat's retry of the ad callback grants once", async () => {
      const k = simulatorRewardKeys("wechat", CRASH_CHILD_APPS.wechat);
      const tx = `tx-${impl.name}-${Date.now()}`;
      const encrypt = encryptAdReward(k.adAesKey, { transaction_id: tx, user_id: "player-ann", reward_item: "x", reward_amount: 1, custom_data: JSON.stringify({ adUnitId: "adunit-example" }) });
      const timestamp = String(Date.now());
      const body = JSON.stringify({ signature: adSignature(k.adToken, timestamp, "7", encrypt), timestamp, nonce: "7", encrypt });
      const answers = await crashThenRetry("after_view_recorded", (base) => post(`${base}/api/minigame/wechat/ad-reward`, body));
      assert.deepEqual(answers.map((a) => a.body?.is_valid), [true, true]);
      assert.equal(grantsOf("ad_reward", tx), 1);
    });

    it("before_gift_granted: WeChat's next push of the gift pack grants once", async () => {
      const orderId = `gift-${impl.name}-${Date.now()}`;
      const answers = await crashThenRetry("before_gift_granted", (base) => {
        const push = sealedGiftPush(CRASH_CHILD_APPS.wechat, { orderId, openid: "player-bo", giftId: "daily-pack" });
        return post(`${base}/api/minigame/wechat/gift-push?${push.query}`, push.body);
      });
      assert.deepEqual(answers.map((a) => a.body?.ErrCode), [0, 0]);
      assert.equal(grantsOf("gift_pack", orderId), 1);
    });

    // A gift code's claim is the ledger's entry alone (the grants file here), whatever the store: once is enough.
    if (impl.name === "SQLite")
      it("before_gift_granted: a redeemed gift code is granted once on the player's retry", async () => {
        const code = `cdk-${Date.now()}`;
        const answers = await crashThenRetry("before_gift_granted", (base) => post(`${base}/gift-codes/dee/${code}`, ""));
        assert.deepEqual(answers.map((a) => a.body?.granted), [true, false]);
        assert.equal(grantsOf("gift_code", code), 1);
      });

    it("after_mail_granted: the player's repeated claim finishes it, one grant", async () => {
      const sender = await startChild(tmp, store);
      const { mail } = (await post(`${sender.base}/mail/cy/send`, "{}")).body as { mail: { mailId: string } };
      sender.process.kill("SIGKILL");
      await sender.exited;
      const answers = await crashThenRetry("after_mail_granted", (base) => post(`${base}/mail/cy/${mail.mailId}/claim`, ""));
      assert.deepEqual(answers.map((a) => a.body?.granted), [false, false]);
      assert.equal(grantsOf("mail", `${mail.mailId}:cy`), 1);
    });
  });
}
