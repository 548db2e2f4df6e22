/**
 * Content security end to end: real colyseus.js clients in the lobby, PATCH /api/users/me, the
 * simulator's checks (text with `simulator-risky` is risky, `simulator-review` is "review"), the
 * word list (`localbadword`) for players without a platform check and while a check is unavailable,
 * and a platform token cancelled mid-run.
 */
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { AuthenticatedRoom, type PlayerClient } from "../../rooms/AuthenticatedRoom";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { freePort, startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";
import { freshPlayer, loginPath, platformDefinitions } from "../support/platforms";
import { leaveRooms } from "../support/rooms";

/** A room as a studio writes it: the content check is one line from the base class. */
class StudioRoom extends AuthenticatedRoom {
  override onCreate(options: unknown) {
    super.onCreate(options);
    this.onMessage("say", async (client: PlayerClient, text: string) => {
      if (!(await this.moderate(client, String(text)))) return;
      this.broadcast("said", String(text));
    });
  }
}

const WORDS = { CONTENT_CHECK_WORDS: "localbadword, other-bad" };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Player {
  token: string;
  user: { id: string; version: number };
}

/** Every message of each type a room receives, in order. */
function recorder(room: Room) {
  const got = { chat: [] as Array<{ text: string; userId: string }>, error: [] as Array<{ code: string }> };
  room.onMessage("chat", (m) => got.chat.push(m));
  room.onMessage("error", (m) => got.error.push(m));
  return got;
}

async function until(condition: () => boolean, what: string, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function metric(h: Harness, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`)).text();
  const line = text.split("\n").find((l) => pattern.test(l));
  return line ? Number(line.split(" ").pop()) : 0;
}

for (const backend of backends) {
  describe(`content security — ${backend.name}`, function () {
    this.timeout(30_000);
    let simulator: RunningSimulator;
    let simClock = Date.now();
    let h: Harness;
    let release: () => Promise<void>;
    const rooms: Room[] = [];

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      simulator = await startSimulator({ port: 0, now: () => simClock });
      h = await startHarness({ env: { ...prepared.env, ...WORDS }, simulator });
      matchMaker.defineRoomType("studio", StudioRoom);
    });
    afterEach(async () => {
      simulator.setContentCheck({ perMinute: 4000 });
      simulator.setGameContentCheck({ perMinute: 10_000 });
      await leaveRooms(rooms);
    });
    after(async () => {
      await h?.close();
      await simulator?.close();
      await release?.();
    });

    async function login(platform = "wechat"): Promise<Player> {
      const definition = platformDefinitions.find((p) => p.name === platform)!;
      const res = await h.get(loginPath(definition, freshPlayer(`cs${platform}`)));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    }
    async function join(player: Player) {
      const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: player.token });
      rooms.push(room);
      return { room, got: recorder(room) };
    }
    const rename = (player: Player, nickname: string, version = player.user.version) =>
      h.request("PATCH", "/api/users/me", { nickname, version }, bearer(player.token));

    it("a risky lobby message reaches no other player and its sender gets content_moderated; clean and review messages are delivered", async () => {
      const a = await join(await login());
      const b = await join(await login());
      a.room.send("chat", { text: "this is simulator-risky text" });
      await until(() => a.got.error.length === 1, "the sender's error");
      assert.equal(a.got.error[0].code, "content_moderated");
      a.room.send("chat", { text: "a clean hello" });
      a.room.send("chat", { text: "maybe simulator-review this" });
      await until(() => b.got.chat.length === 2, "two delivered messages");
      await sleep(100);
      assert.deepEqual(
        b.got.chat.map((m) => m.text),
        ["a clean hello", "maybe simulator-review this"],
      );
      assert.equal(a.got.chat.length, 2, "the sender sees its own delivered messages only");
      assert.equal(a.got.error.length, 1);
      assert.ok((await metric(h, /^content_checks_total\{platform="wechat",verdict="risky",source="platform"\}/)) >= 1);
    });

    it("a studio's room checks text with one call to this.moderate", async () => {
      const player = await login("qq");
      const room = await new Client(h.baseUrl).joinOrCreate("studio", { accessToken: player.token });
      rooms.push(room);
      const said: string[] = [];
      const errors: Array<{ code: string }> = [];
      room.onMessage("said", (text: string) => said.push(text));
      room.onMessage("error", (e) => errors.push(e));
      room.send("say", "simulator-risky in a studio room");
      await until(() => errors.length === 1, "the refusal");
      room.send("say", "fine words");
      await until(() => said.length === 1, "the delivered text");
      assert.deepEqual([said, errors.map((e) => e.code)], [["fine words"], ["content_moderated"]]);
    });

    for (const platform of ["wechat", "douyin", "qq"]) {
      it(`${platform}: a risky nickname is refused with 422 content_moderated and nothing changes; a clean one is stored`, async () => {
        const player = await login(platform);
        const refused = await rename(player, "simulator-risky name");
        assert.equal(refused.status, 422, JSON.stringify(refused.body));
        assert.equal(refused.body.success, false);
        assert.equal(refused.body.data.code, "content_moderated");
        const me = await h.get("/api/users/me", bearer(player.token));
        assert.equal(me.body.data.nickname, null);
        assert.equal(me.body.data.version, player.user.version);
        const ok = await rename(player, "Ace");
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        assert.equal(ok.body.data.nickname, "Ace");
      });
    }

    it("players with only a password, and Kuaishou players, are checked against the word list", async () => {
      const name = freshPlayer("pw").slice(0, 24);
      const registered = await h.request("POST", "/api/auth/register", { username: name, email: `${name}@example.com`, password: "correct horse battery" });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      const checksBefore = simulator.stats().contentCheck;
      for (const player of [registered.body.data as Player, await login("kuaishou")]) {
        const refused = await rename(player, "my Ｌｏｃａｌ bad word");
        assert.equal(refused.status, 422, JSON.stringify(refused.body));
        assert.equal(refused.body.data.code, "content_moderated");
        assert.equal((await rename(player, "simulator-risky nickname")).status, 200);
      }
      assert.deepEqual(simulator.stats().contentCheck, checksBefore, "no platform was asked");
    });

    it("while the platform's check is over its limit, the word list decides, and the fallback is counted", async () => {
      const a = await join(await login());
      const b = await join(await login());
      const fallbacks = () => metric(h, /^content_check_fallbacks_total\{platform="wechat",reason="platform_rate_limited"\}/);
      const before = await fallbacks();
      // WeChat chat goes to the mini-game check, which has its own limit.
      simulator.setGameContentCheck({ perMinute: 0 });
      a.room.send("chat", { text: "localbadword during the outage" });
      await until(() => a.got.error.length === 1, "the sender's error");
      assert.equal(a.got.error[0].code, "content_moderated");
      a.room.send("chat", { text: "fallback simulator-risky passes the word list" });
      await until(() => b.got.chat.length === 1, "the delivered message");
      assert.equal(b.got.chat[0].text, "fallback simulator-risky passes the word list");
      assert.equal(await fallbacks(), before + 2);
    });

    it("a platform token cancelled mid-run is healed and the checks continue", async () => {
      const a = await join(await login());
      const b = await join(await login());
      a.room.send("chat", { text: "before the token is cancelled" });
      await until(() => b.got.chat.length === 1, "the first message");

      // Another holder of the credentials forces a new stable token: ours stops working at once.
      simClock += 31_000;
      const { appId, appSecret, apiBaseUrl } = h.config.platforms.wechat;
      await fetch(`${apiBaseUrl}/cgi-bin/stable_token`, {
        method: "POST",
        body: JSON.stringify({ grant_type: "client_credential", appid: appId, secret: appSecret, force_refresh: true }),
      });
      simulator.resetStats();
      a.room.send("chat", { text: "after the token is cancelled, still checked" });
      await until(() => b.got.chat.length === 2, "the message checked with the healed token");
      assert.equal(b.got.chat[1].text, "after the token is cancelled, still checked");
      a.room.send("chat", { text: "and one more after healing simulator-risky" });
      await until(() => a.got.error.length === 1, "the next check");
      assert.equal(a.got.error[0].code, "content_moderated", "the platform, not the word list, still decides");
      assert.equal(simulator.stats().accessToken.wechat, 1, "one token fetch heals it");
      assert.equal(simulator.stats().gameContentCheck.wechat, 3, "one refused check, its retry, the next check (chat: the mini-game check)");
    });

    it("Douyin: a token cancelled mid-run is healed for nickname checks too", async () => {
      const player = await login("douyin");
      assert.equal((await rename(player, "first name")).status, 200);
      simClock += 31_000;
      const { appId, appSecret, apiBaseUrl } = h.config.platforms.douyin;
      await fetch(`${apiBaseUrl}/mgplatform/api/apps/stable_token`, {
        method: "POST",
        body: JSON.stringify({ grant_type: "client_credential", appid: appId, secret: appSecret, force_refresh: true }),
      });
      const refused = await rename(player, "simulator-risky second", player.user.version + 1);
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.equal((await rename(player, "second name", player.user.version + 1)).status, 200);
    });

    describe("with Douyin's check at a dead address", () => {
      let dead: Harness;
      before(async () => {
        const prepared = await backend.prepare();
        const closedPort = await freePort();
        dead = await startHarness({
          env: { ...prepared.env, ...WORDS, DOUYIN_CONTENT_API_BASE_URL: `http://127.0.0.1:${closedPort}` },
          simulator,
        });
        const close = dead.close;
        dead.close = async () => {
          await close();
          await prepared.release();
        };
      });
      after(() => dead?.close());

      it("falls back to the word list and counts it", async () => {
        const res = await dead.get(loginPath(platformDefinitions.find((p) => p.name === "douyin")!, freshPlayer("dead")));
        const player = res.body.data as Player;
        const patch = (nickname: string, version: number) => dead.request("PATCH", "/api/users/me", { nickname, version }, bearer(player.token));
        const refused = await patch("localbadword", player.user.version);
        assert.equal(refused.status, 422, JSON.stringify(refused.body));
        assert.equal(refused.body.data.code, "content_moderated");
        assert.equal((await patch("simulator-risky unknown locally", player.user.version)).status, 200);
        assert.equal(await metric(dead, /^content_check_fallbacks_total\{platform="douyin",reason="network_error"\}/), 2);
      });
    });
  });
}
