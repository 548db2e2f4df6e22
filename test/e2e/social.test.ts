/**
 * The platforms' social services end to end (issue 27): the real app, real colyseus.js clients, the
 * simulator over HTTP checking every signature. Scores recorded by a match room read back from the
 * simulator's storage; the storage routes' limits (no platform call), a stale session key, Douyin
 * likewise; subscribe messages with grants, their mapped refusals and metrics; lobby chat on WeChat's
 * game content-security endpoint while nicknames keep msgSecCheck's profile scene.
 */
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { MatchRoom, type MatchResults } from "../../rooms/MatchRoom";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";
import { freshPlayer, loginPath, platformDefinitions } from "../support/platforms";
import { leaveRooms } from "../support/rooms";

const INTERNAL_KEY = "social-test-internal-key-0123456789";
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const internal = { "x-internal-key": INTERNAL_KEY };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Player {
  token: string;
  openid: string;
  user: { id: string };
  session_key: string;
  code: string;
}

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

for (const backend of backends) {
  describe(`social services — ${backend.name}`, function () {
    this.timeout(30_000);
    let simulator: RunningSimulator;
    let h: Harness;
    let release: () => Promise<void>;
    const rooms: Room[] = [];

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      simulator = await startSimulator({ port: 0 });
      h = await startHarness({ env: { ...prepared.env, ACCESS_TOKEN_ROUTE_KEY: INTERNAL_KEY }, simulator });
      matchMaker.defineRoomType("match", MatchRoom);
    });
    afterEach(() => leaveRooms(rooms));
    after(async () => {
      await h?.close();
      await simulator?.close();
      await release?.();
    });

    async function login(platform = "wechat"): Promise<Player> {
      const definition = platformDefinitions.find((p) => p.name === platform)!;
      const code = freshPlayer(`so${platform}`);
      const res = await h.get(loginPath(definition, `${code}.1`));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return { ...res.body.data, code };
    }
    const sim = async (path: string, init?: RequestInit) => {
      const res = await fetch(`${simulator.url}${path}`, init);
      return { status: res.status, body: (await res.json()) as any };
    };
    const storageOf = async (platform: string, openid: string) =>
      (await sim(`/__simulator/storage?${new URLSearchParams({ platform, openid })}`)).body.kvList as Array<{ key: string; value: string }>;
    const put = (p: Player, body: unknown) => h.request("PUT", "/api/players/me/storage", body, bearer(p.token));
    const metric = async (pattern: RegExp) => {
      const line = (await (await fetch(`${h.baseUrl}/metrics`)).text()).split("\n").find((l) => pattern.test(l));
      return line ? Number(line.split(" ").pop()) : 0;
    };

    it("a match room records two players' scores at the end; both read back from the platform's storage", async () => {
      const [alice, bob] = [await login(), await login()];
      const a = await new Client(h.baseUrl).joinOrCreate("match", { accessToken: alice.token });
      rooms.push(a);
      const b = await new Client(h.baseUrl).joinById(a.roomId, { accessToken: bob.token });
      rooms.push(b);
      let results: MatchResults | undefined;
      b.onMessage("results", (r: MatchResults) => (results = r));
      a.onMessage("results", () => undefined);
      a.onMessage("points", () => undefined);
      b.onMessage("points", () => undefined);
      for (let i = 0; i < 3; i++) a.send("hit");
      b.send("hit");
      await sleep(100);
      a.send("finish");
      await until(() => results !== undefined, "the results");
      const byUser = Object.fromEntries(results!.players.map((p) => [p.userId, p]));
      assert.deepEqual(byUser[alice.user.id], { userId: alice.user.id, points: 3, recorded: true });
      assert.deepEqual(byUser[bob.user.id], { userId: bob.user.id, points: 1, recorded: true });
      for (const [player, points] of [[alice, 3], [bob, 1]] as const) {
        const stored = await storageOf("wechat", player.openid);
        assert.equal(stored.length, 1);
        assert.equal(stored[0].key, "score");
        assert.equal(JSON.parse(stored[0].value).wxgame.score, points);
      }
    });

    it("PUT with 129 keys or an oversized value is 400 invalid_request with no platform call; 128 keys are stored and removed", async () => {
      const player = await login();
      const before = simulator.stats().business.wechat;
      const keys = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: String(i) }));
      const tooMany = await put(player, { kvList: keys(129) });
      assert.equal(tooMany.status, 400, JSON.stringify(tooMany.body));
      assert.equal(tooMany.body.data.code, "invalid_request");
      const oversized = await put(player, { kvList: [{ key: "big", value: "x".repeat(1100) }] });
      assert.equal(oversized.status, 400);
      assert.equal(oversized.body.data.fields[0].field, "kvList[0].value");
      const badRanking = await put(player, { kvList: [{ key: "score", value: '{"wxgame":{"score":"high"}}' }] });
      assert.equal(badRanking.status, 400);
      assert.equal(simulator.stats().business.wechat, before, "no platform call");

      const ok = await put(player, { kvList: keys(128) });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal((await storageOf("wechat", player.openid)).length, 128);
      const full = await put(player, { kvList: [{ key: "one-more", value: "x" }] });
      assert.deepEqual([full.status, full.body.data.code], [409, "player_storage_full"]);
      const removed = await h.request("DELETE", "/api/players/me/storage", { keys: ["k0", "k1"] }, bearer(player.token));
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.equal((await storageOf("wechat", player.openid)).length, 126);
      const missing = await h.request("DELETE", "/api/players/me/storage", { keys: ["k0"] }, bearer(player.token));
      assert.deepEqual([missing.status, missing.body.data.code, missing.body.data.errcode], [400, "invalid_request", 87016]);
    });

    it("a session key the platform replaced (a login elsewhere) is 409 session_key_rejected: log in again", async () => {
      const player = await login();
      const { appId, appSecret } = platformDefinitions.find((p) => p.name === "wechat")!.simulatorApp;
      const query = new URLSearchParams({ appid: appId, secret: appSecret, js_code: `${player.code}.2`, grant_type: "authorization_code" });
      assert.equal((await sim(`/sns/jscode2session?${query}`)).status, 200);
      const res = await put(player, { kvList: [{ key: "score", value: "1" }] });
      assert.deepEqual([res.status, res.body.data.code], [409, "session_key_rejected"], JSON.stringify(res.body));
      assert.deepEqual(await storageOf("wechat", player.openid), []);
      const again = await h.get(loginPath(platformDefinitions.find((p) => p.name === "wechat")!, `${player.code}.3`));
      assert.equal((await put({ ...player, token: again.body.data.token }, { kvList: [{ key: "score", value: "1" }] })).status, 200);
    });

    it("Douyin: the same storage routes, signed with the Douyin session key, read back from Douyin's storage", async () => {
      const player = await login("douyin");
      const value = JSON.stringify({ ttgame: { score: 9, update_time: 1_735_689_600 } });
      const res = await put(player, { kvList: [{ key: "score", value }, { key: "level", value: "3" }] });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(await storageOf("douyin", player.openid), [
        { key: "score", value },
        { key: "level", value: "3" },
      ]);
      assert.equal((await h.request("DELETE", "/api/players/me/storage", { keys: ["level"] }, bearer(player.token))).status, 200);
      assert.deepEqual((await storageOf("douyin", player.openid)).map((e) => e.key), ["score"]);
      assert.equal((await put(player, { kvList: Array.from({ length: 129 }, (_, i) => ({ key: `k${i}`, value: "" })) })).status, 400);
    });

    for (const platform of ["wechat", "douyin"]) {
      it(`${platform}: a subscribe message granted once is delivered once; the next is 409 subscribe_not_granted; an invalid template 422`, async () => {
        const player = await login(platform);
        const send = (templateId: string, headers = internal) =>
          h.request("POST", `/api/minigame/${platform}/subscribe_message`, { userId: player.user.id, templateId, page: "pages/index", data: { thing1: { value: "Your match is ready" } } }, headers);
        const counted = (result: string) => metric(new RegExp(`^subscribe_messages_total\\{platform="${platform}",result="${result}"\\}`));
        const [sentBefore, refusedBefore, invalidBefore] = [await counted("sent"), await counted("not_granted"), await counted("invalid")];

        assert.equal((await send("tpl-ready", {} as typeof internal)).status, 401, "guarded like the access-token route");
        const grant = await sim("/__simulator/subscribe-grant", { method: "POST", body: JSON.stringify({ platform, openid: player.openid, templateId: "tpl-ready", count: 1 }) });
        assert.equal(grant.status, 200);
        const first = await send("tpl-ready");
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.deepEqual(first.body.data, { sent: true });
        const second = await send("tpl-ready");
        assert.deepEqual([second.status, second.body.data.code], [409, "subscribe_not_granted"]);
        await sim("/__simulator/subscribe-grant", { method: "POST", body: JSON.stringify({ platform, openid: player.openid, templateId: "invalid-tpl", count: 1 }) });
        const invalid = await send("invalid-tpl");
        assert.deepEqual([invalid.status, invalid.body.data.code], [422, "subscribe_invalid"]);

        const messages = (await sim(`/__simulator/subscribe-messages?${new URLSearchParams({ platform, openid: player.openid })}`)).body.messages;
        assert.equal(messages.length, 1);
        assert.equal(messages[0].templateId, "tpl-ready");
        assert.equal(JSON.stringify(messages[0].data).includes("Your match is ready"), true);
        assert.deepEqual(
          [(await counted("sent")) - sentBefore, (await counted("not_granted")) - refusedBefore, (await counted("invalid")) - invalidBefore],
          [1, 1, 1],
        );
      });
    }

    it("lobby chat on WeChat goes to the game content-security endpoint; a nickname to msgSecCheck's profile scene", async () => {
      const player = await login();
      const before = simulator.stats();
      const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: player.token });
      rooms.push(room);
      const chats: string[] = [];
      room.onMessage("chat", (m: { text: string }) => chats.push(m.text));
      room.onMessage("error", () => undefined);
      room.send("chat", { text: "good game everyone" });
      await until(() => chats.length === 1, "the chat line");
      const afterChat = simulator.stats();
      assert.equal(afterChat.gameContentCheck.wechat - before.gameContentCheck.wechat, 1);
      assert.equal(afterChat.contentCheck.wechat, before.contentCheck.wechat);
      const me = await h.get("/api/users/me", bearer(player.token));
      const renamed = await h.request("PATCH", "/api/users/me", { nickname: "Band leader", version: me.body.data.version }, bearer(player.token));
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      const afterName = simulator.stats();
      assert.equal(afterName.contentCheck.wechat - afterChat.contentCheck.wechat, 1);
      assert.equal(afterName.gameContentCheck.wechat, afterChat.gameContentCheck.wechat);
    });

    it("no session key or kept key reaches the logs", async () => {
      const player = await login();
      assert.ok(player.session_key.length >= 16);
      await put(player, { kvList: [{ key: "score", value: "2" }] });
      await put(player, { kvList: [{ key: "big", value: "x".repeat(2000) }] });
      assert.ok(!h.logs.join("\n").includes(player.session_key), "the session key was logged");
    });
  });
}
