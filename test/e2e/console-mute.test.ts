/**
 * Muting a player from the console, seen by real Colyseus clients in the lobby: a muted player's
 * chat is refused with `muted` and reaches no one; unmuted, or once the mute has run out, it works
 * again; a viewer's attempt is refused and audited. On the embedded defaults and PostgreSQL + Redis.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import { startHarness, type Harness } from "../support/app-harness";
import { backends } from "../support/backends";
import { addOperator, ConsoleClient, OPERATOR_PASSWORD } from "../support/console";
import { leaveRooms } from "../support/rooms";

let seq = 0;
const unique = (label: string) => `${label}${Date.now().toString(36)}${seq++}`;

interface Chat {
  userId: string;
  text: string;
}

for (const backend of backends) describe(`console mute in rooms — ${backend.name}`, function () {
  this.timeout(60_000);
  let h: Harness;
  let release: (() => Promise<void>) | undefined;
  const rooms: Room[] = [];

  before(async () => {
    const prepared = await backend.prepare();
    release = prepared.release;
    h = await startHarness({ env: prepared.env });
  });
  afterEach(() => leaveRooms(rooms));
  after(async () => {
    await h?.close();
    await release?.();
  });

  async function player() {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=${unique("mute")}.1`);
    assert.equal(login.status, 200);
    const { token, user } = login.body.data as { token: string; user: { id: string } };
    const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: token });
    rooms.push(room);
    const chats: Chat[] = [];
    const errors: Array<{ code: string; message: string; until?: string }> = [];
    room.onMessage("chat", (c: Chat) => chats.push(c));
    room.onMessage("error", (e) => errors.push(e));
    return { id: user.id, room, chats, errors };
  }
  async function operator(role: "viewer" | "support") {
    const op = await addOperator(h.config, unique(role), role);
    const client = new ConsoleClient(h.baseUrl);
    assert.equal((await client.signIn(op, OPERATOR_PASSWORD)).status, 200);
    return { op, client };
  }
  const until = async (what: string, check: () => boolean, ms = 3000) => {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  /** `from` says something; resolves once `to` has heard it (chat is broadcast in order). */
  async function heard(from: { room: Room; id: string }, to: { chats: Chat[] }, text: string) {
    from.room.send("chat", { text });
    await until(`"${text}"`, () => to.chats.some((c) => c.userId === from.id && c.text === text));
  }

  it("refuses a muted player's chat with `muted` and shows it to no one; unmuting lets it through", async () => {
    const [a, b] = [await player(), await player()];
    assert.equal(a.room.roomId, b.room.roomId, "one lobby");
    await heard(a, b, "before");
    const { client } = await operator("support");
    const muted = await client.call("POST", `/players/${a.id}/mute`, { reason: "insults", durationSec: 600 });
    assert.equal(muted.status, 200, JSON.stringify(muted.body));
    assert.equal(muted.body.data.mute.reason, "insults");

    a.room.send("chat", { text: "while muted" });
    await until("the refusal", () => a.errors.length > 0);
    assert.equal(a.errors[0].code, "muted");
    assert.equal(a.errors[0].until, muted.body.data.mute.until);
    assert.match(a.errors[0].message, /mute/i);
    // b's own message comes back after anything a's refused message could have caused.
    await heard(b, b, "b after");
    assert.equal([...a.chats, ...b.chats].some((c) => c.text === "while muted"), false, "nobody heard it");
    assert.equal(a.room.connection.isOpen, true, "a mute is not a kick");

    const unmuted = await client.call("POST", `/players/${a.id}/unmute`);
    assert.deepEqual([unmuted.status, unmuted.body.data.mute], [200, null]);
    await heard(a, b, "after unmute");
    const audit = await client.call("GET", `/audit?target=${a.id}`);
    assert.deepEqual(audit.body.data.filter((e: { action: string }) => e.action.startsWith("player.")).map((e: { action: string; outcome: string }) => [e.action, e.outcome]).sort(), [["player.mute", "ok"], ["player.unmute", "ok"]]);
  });

  it("ends a mute by itself at its end time", async () => {
    const [a, b] = [await player(), await player()];
    const { client } = await operator("support");
    assert.equal((await client.call("POST", `/players/${a.id}/mute`, { reason: "cool down", durationSec: 1 })).status, 200);
    a.room.send("chat", { text: "too soon" });
    await until("the refusal", () => a.errors.some((e) => e.code === "muted"));
    await new Promise((r) => setTimeout(r, 1100));
    await heard(a, b, "after the end");
    assert.equal((await client.call("GET", `/players/${a.id}`)).body.data.mute, null);
  });

  it("refuses a viewer's mute with 403 and audits it; the player still chats", async () => {
    const [a, b] = [await player(), await player()];
    const { op, client } = await operator("viewer");
    const refused = await client.call("POST", `/players/${a.id}/mute`, { reason: "nope", durationSec: 600 });
    assert.deepEqual([refused.status, refused.body.data.code], [403, "console_role_forbidden"]);
    await heard(a, b, "still here");
    const { client: support } = await operator("support");
    const audit = await support.call("GET", `/audit?actor=${op.name}&action=player.mute`);
    assert.deepEqual(audit.body.data.map((e: { outcome: string; target: string }) => [e.outcome, e.target]), [["refused", a.id]]);
  });
});
