/**
 * A process serving the reward sources for the SIGKILL tests (test/process/reward-faults.test.ts):
 * the callback routes, a mail-claim route and a gift-code route (Douyin's confirmation stubbed: every
 * code is the player's and names daily-pack, the same answer each time, as a repeated uuid gets) over
 * the real stores (REWARD_STORE: the store settings as JSON) and a RewardGranter kept in a SQLite file
 * (GRANTS_FILE) that survives the kill, as the
 * economy's ledger does (its own suites prove that one). REWARD_CRASH_POINT kills the process at a
 * step. Writes its port to PORT_FILE once listening.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Database from "better-sqlite3";
import express from "express";
import type { AppConfig } from "../../src/config/config";
import type { RewardCrashPoint } from "../../src/config/settings/rewards";
import { createRewardStores } from "../../src/adapters/store/create-reward-stores";
import type { RewardGrant, RewardGrantResult, RewardGranter } from "../../src/core/ports/reward-grants";
import { rewardPushRoutes } from "../../src/api/reward-push-routes";
import { MemoryCache } from "../../src/adapters/cache/memory-cache";
import { PUSH_MAX_SKEW_SEC } from "../../src/platforms/wechat/wechat-push";
import { PushNonces } from "../../src/services/push-nonces";
import { createLogger } from "../../src/logging/logger";
import { AdRewards } from "../../src/services/rewards/ad-rewards";
import { GiftCodes } from "../../src/services/rewards/gift-codes";
import { GiftRewards } from "../../src/services/rewards/gift-rewards";
import { MailService } from "../../src/services/rewards/mail-service";
import type { RewardCatalog } from "../../src/services/rewards/reward-catalog";
import { simulatorRewardKeys } from "../../src/simulator/rewards/reward-keys";

/** Grants in a SQLite file: one row per (app, source, sourceId), written durably before the answer. */
class FileRewardGranter implements RewardGranter {
  private readonly db: Database.Database;
  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec("create table if not exists grants (app text, source text, source_id text, user_id text, body text, primary key (app, source, source_id))");
  }
  recorded(app: string, source: string, sourceId: string): { userId: string } | undefined {
    const row = this.db.prepare("select user_id from grants where app = ? and source = ? and source_id = ?").get(app, source, sourceId) as { user_id: string } | undefined;
    return row && { userId: row.user_id };
  }
  async grant(grant: RewardGrant): Promise<RewardGrantResult> {
    const { changes } = this.db.prepare("insert or ignore into grants values (?, ?, ?, ?, ?)").run(grant.appId, grant.source, grant.sourceId, grant.userId, JSON.stringify(grant));
    return { granted: changes === 1, balances: {}, items: [] };
  }
}

export const CRASH_CHILD_APPS = { wechat: "wx-crash-app", douyin: "tt-crash-app" } as const;

export const crashCatalog: RewardCatalog = {
  adUnit: async (_app, adUnitId) => (adUnitId === "adunit-example" ? { adUnitId, grants: { currencies: { gold: 10 } }, dailyCap: 5 } : undefined),
  giftPack: async (_app, giftId) => (giftId === "daily-pack" ? { giftId, grants: { currencies: { gems: 5 } } } : undefined),
};

async function main(): Promise<void> {
  const store = JSON.parse(process.env.REWARD_STORE ?? "{}") as AppConfig["store"];
  const point = process.env.REWARD_CRASH_POINT as RewardCrashPoint | undefined;
  const crashPoint = point ? (step: RewardCrashPoint) => (step === point ? process.kill(process.pid, "SIGKILL") : undefined) : undefined;
  const stores = await createRewardStores(store);
  const granter = new FileRewardGranter(process.env.GRANTS_FILE!);
  const logger = createLogger({ level: "silent" });
  // Each openid is its own player: "player-<id>" → "<id>".
  const userIdFor = async (_p: string, _a: string, openid: string) => openid.replace(/^player-/, "");
  const ads = new AdRewards({ views: stores, rewards: granter, catalog: crashCatalog, userIdFor, logger, dayOffsetHours: 8, crashPoint });
  const gifts = new GiftRewards({ rewards: granter, catalog: crashCatalog, userIdFor, logger, crashPoint });
  const mail = new MailService({ store: stores, rewards: granter, defaultExpiryDays: 30, crashPoint });
  const giftCodes = new GiftCodes({
    gifts,
    redeemer: { serves: () => true, redeem: async () => ({ giftId: "daily-pack", name: "Daily", props: [] }) },
    openidOf: async (_app, userId) => `player-${userId}`,
    recorded: async (app, code) => {
      const found = granter.recorded(app, "gift_code", code);
      return found && { ...found, giftId: "daily-pack", result: { balances: {}, items: [] } };
    },
    logger,
  });
  const app = express();
  const keys = (platform: "wechat" | "douyin") => {
    const k = simulatorRewardKeys(platform, CRASH_CHILD_APPS[platform]);
    return [{ app: "default", appId: CRASH_CHILD_APPS[platform], ad: platform === "wechat" ? { token: k.adToken, encodingAesKey: k.adAesKey } : undefined, giftPush: { token: k.giftPushToken, encodingAesKey: k.giftPushAesKey } }];
  };
  const nonces = new PushNonces(new MemoryCache(), PUSH_MAX_SKEW_SEC);
  app.use("/api/minigame", rewardPushRoutes({ platforms: [{ name: "wechat" }, { name: "douyin" }], rewardApps: keys, ads, gifts, nonces, logger }));
  app.post("/mail/:user/send", express.json(), async (req, res) => res.json(await mail.send({ app: "default", userId: req.params.user, title: "Sorry", attachments: { currencies: { gold: 100 } }, sender: "ops" })));
  app.post("/gift-codes/:user/:code", async (req, res) => res.json(await giftCodes.redeem("default", req.params.user, req.params.code)));
  app.post("/mail/:user/:mailId/claim", async (req, res) => res.json(await mail.claim("default", req.params.user, req.params.mailId)));
  const server = http.createServer(app);
  server.listen(0, "127.0.0.1", () => fs.writeFileSync(process.env.PORT_FILE!, String((server.address() as AddressInfo).port)));
}

void main();
