/**
 * Each game's own openid, on every store: one player of two Douyin games (the default app and
 * "puzzle", linked by unionid into one user) sees the token's game's openid in the login's
 * `data.user.openid` and in GET /api/users/me, not the first game's. The docs tell a Douyin game to
 * put that openid in a payment's extraInfo: an item bought in the second game is then recorded and
 * delivered once (before, the callback named the first game's openid, was refused as "no player of
 * this app", and Douyin called again forever).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { useHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";

const PUZZLE_DOUYIN = "tt_puzzle_openid_app";

function appsFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-apps-openid-"));
  const file = path.join(dir, "apps.json");
  fs.writeFileSync(file, JSON.stringify({
      apps: [
        {
          key: "puzzle",
          douyin: { appId: PUZZLE_DOUYIN, appSecret: "puzzle-douyin-secret" },
          // The second game's own shop: a pushed purchase is checked against it (docs/economy.md).
          catalog: { currencies: [{ currencyId: "gems" }], items: [{ itemId: "gem_pack", name: "Gems", kind: "bundle", prices: { coins: 60 }, platformPrice: 600, grants: { currencies: { gems: 60 } } }] },
        },
      ],
    }));
  return file;
}

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}x${seq++}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function login(h: Harness, code: string, appId?: string) {
  const res = await h.get(`/api/minigame/douyin/login?code=${code}${appId ? `&appId=${appId}` : ""}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { token: string; openid: string; unionid?: string; user: { id: string; openid: string } };
}

for (const backend of backends) {
  describe(`each game's own openid — ${backend.name}`, function () {
    this.timeout(60_000);
    const h = useHarness(backend, { env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", APPS_FILE: appsFile() } });

    it("shows the token's game's openid at login and in /users/me, and delivers a Douyin purchase in the second game once", async () => {
      const name = unique("twogames");
      const first = await login(h, `${name}.1`);
      const second = await login(h, `${name}.2`, PUZZLE_DOUYIN);
      assert.equal(second.user.id, first.user.id, "one player, linked by unionid");
      assert.notEqual(second.openid, first.openid, "each game its own openid");
      assert.equal(first.user.openid, first.openid);
      assert.equal(second.user.openid, second.openid, "the login shows this game's openid");

      const meFirst = (await h.get("/api/users/me", bearer(first.token))).body.data;
      const meSecond = (await h.get("/api/users/me", bearer(second.token))).body.data;
      assert.deepEqual([meFirst.app, meFirst.openid], ["default", first.openid]);
      assert.deepEqual([meSecond.app, meSecond.openid], ["puzzle", second.openid]);

      // As docs/payments.md says: extraInfo names the openid of GET /api/users/me.
      const bought = await fetch(`${h.services.simulator!.url}/__simulator/item-purchase`, {
        method: "POST",
        body: JSON.stringify({ platform: "douyin", appId: PUZZLE_DOUYIN, openid: meSecond.openid, itemId: "gem_pack", price: 600 }),
      });
      assert.equal(bought.status, 200);
      const { outTradeNo } = (await bought.json()) as { outTradeNo: string };
      let order: any;
      for (let i = 0; i < 250 && order?.state !== "delivered"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        order = (await h.get(`/api/payments/orders/${outTradeNo}`, bearer(second.token))).body.data;
      }
      assert.deepEqual([order?.kind, order?.state, order?.platform], ["item_purchase", "delivered", "douyin"]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(h.logs.filter((line) => line.includes('"event":"item_delivered"') && line.includes(outTradeNo)).length, 1, "delivered once");
      assert.equal(h.logs.filter((line) => line.includes('"event":"push_not_recorded"')).length, 0);
    });
  });
}
