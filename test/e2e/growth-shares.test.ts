/**
 * WeChat updatable share messages on the real server with the simulator playing activityid/create and
 * updatablemsg/send, on every store's cache: a sharer creates one for a room, invitees joining through
 * it are told the room and counted once each (20 concurrent joins of one player count once), the card
 * moves "1/3" → "2/3" → started; unknown, another app's and malformed ids are refused, nothing counted.
 */
import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends as backends } from "../support/backends";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

for (const backend of backends) {
  describe(`Growth: WeChat share messages: ${backend.name}`, function () {
    this.timeout(120_000);
    let h: Harness;
    let release: () => Promise<void>;
    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      h = await startHarness({ env: prepared.env });
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function player(platform: "wechat" | "douyin" = "wechat") {
      const login = platform === "wechat" ? await h.get(`/api/minigame/wechat/login?jsCode=${unique("share")}`) : await h.get(`/api/minigame/douyin/login?code=${unique("share")}`);
      assert.equal(login.status, 200, JSON.stringify(login.body));
      return { openid: login.body.data.openid as string, headers: { authorization: `Bearer ${login.body.data.token}` } };
    }
    const card = async (activityId: string) => (await (await fetch(`${h.simulator.url}/__simulator/updatable-msg?activityId=${encodeURIComponent(activityId)}`)).json()) as { state: number; parameters: Record<string, string>; updates: number; openid: string | null };
    const join = (headers: Record<string, string>, activityId: string) => h.request("POST", `/api/growth/shares/${encodeURIComponent(activityId)}/join`, undefined, headers);

    it("a room share: invitees told the room, counted once each, the card updated to started when full", async () => {
      const sharer = await player();
      const created = await h.request("POST", "/api/growth/shares", { subject: "room", subjectId: "room-42", limit: 3, private: true }, sharer.headers);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const { activityId } = created.body.data;
      assert.deepEqual({ ...created.body.data, activityId: undefined, expiresAt: undefined }, { activityId: undefined, expiresAt: undefined, subject: "room", subjectId: "room-42", members: 1, limit: 3, query: `share=${activityId}` });
      assert.deepEqual((await card(activityId)).parameters, { member_count: "1", room_limit: "3" });
      assert.equal((await card(activityId)).openid, sharer.openid, "private: bound to the sharer");

      const invitee = await player();
      const joins = await Promise.all(Array.from({ length: 20 }, () => join(invitee.headers, activityId)));
      assert.ok(joins.every((r) => r.status === 200 && r.body.data.subjectId === "room-42" && r.body.data.members === 2));
      assert.equal(joins.filter((r) => r.body.data.joined).length, 1);
      assert.deepEqual((await card(activityId)).parameters, { member_count: "2", room_limit: "3" });
      assert.equal((await card(activityId)).updates, 2);

      const third = await join((await player()).headers, activityId);
      assert.deepEqual({ members: third.body.data.members, updated: third.body.data.updated }, { members: 3, updated: true });
      const full = await card(activityId);
      assert.deepEqual({ state: full.state, path: full.parameters.path }, { state: 1, path: `?share=${activityId}` });
      // Past the limit: told the room, counted, the card (final) left alone.
      const fourth = await join((await player()).headers, activityId);
      assert.deepEqual({ members: fourth.body.data.members, updated: fourth.body.data.updated }, { members: 4, updated: false });
      assert.equal((await card(activityId)).updates, 3);
    });

    it("unknown and malformed ids, bad bodies, a sharer without WeChat: refused, nothing counted", async () => {
      const p = await player();
      const unknown = await join(p.headers, "sim_activity_nope");
      assert.deepEqual([unknown.status, unknown.body.data.code], [404, "share_not_found"]);
      assert.equal((await join(p.headers, "bad id!")).status, 400);
      for (const body of [{}, { subject: "party", subjectId: "x", limit: 3 }, { subject: "room", subjectId: "x", limit: 1 }, { subject: "room", subjectId: "a b", limit: 3 }, { subject: "room", subjectId: "x", limit: 3, extra: 1 }]) {
        assert.equal((await h.request("POST", "/api/growth/shares", body, p.headers)).status, 400, JSON.stringify(body));
      }
      const douyin = await player("douyin");
      const refused = await h.request("POST", "/api/growth/shares", { subject: "invite", subjectId: "inv-1", limit: 2 }, douyin.headers);
      assert.deepEqual([refused.status, refused.body.data.code, refused.body.data.reason], [404, "growth_unsupported", "no_wechat_login"]);
      assert.equal((await h.request("POST", "/api/growth/shares", { subject: "invite", subjectId: "inv-1", limit: 2 })).status, 401);
    });
  });
}
