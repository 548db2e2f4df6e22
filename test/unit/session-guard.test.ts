import { strict as assert } from "node:assert";
import { LocalPresence } from "@colyseus/core";
import { RoomSessionGuard, type GuardedRoom } from "../../rooms/session-guard";
import { platformTokenChangedMessage, SESSION_CHANGED_TOPIC, userChangedMessage } from "../../src/core/session-events";
import { createLogger } from "../../src/logging/logger";
import { newPlatformUser } from "../../src/services/user-factory";
import { unitSessions, type UnitSessions } from "../support/unit-sessions";

/** The in-process presence, with each message sent through JSON as Redis carries it, and recorded. */
class RecordingPresence extends LocalPresence {
  readonly published: unknown[] = [];
  override publish(topic: string, data: unknown): this {
    const wire = JSON.parse(JSON.stringify(data)) as unknown;
    if (topic === SESSION_CHANGED_TOPIC) this.published.push(wire);
    return super.publish(topic, wire);
  }
}

/** A room holding one client per seat given; records which seats the guard told it to drop. */
class SeatsRoom implements GuardedRoom {
  readonly app = "default";
  readonly dropped: { userId: string; sid: string }[] = [];
  constructor(private readonly seats: { userId: string; sid: string }[]) {}
  holdsUser(userId: string): boolean {
    return this.seats.some((s) => s.userId === userId);
  }
  revokeStaleSessions(userId: string, liveSid: string | null): void {
    for (const seat of this.seats) if (seat.userId === userId && seat.sid !== liveSid) this.dropped.push(seat);
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** The guard publishes after the turn's I/O, and re-checks after one cache read. */
const settle = async () => {
  for (let i = 0; i < 3; i++) await nextTurn();
};

describe("room session guard", () => {
  let core: UnitSessions;
  let presence: RecordingPresence;
  let guard: RoomSessionGuard;
  const forgotten: string[] = [];
  const forgottenTokens: string[] = [];
  let userChanged: ((userId: string) => void) | undefined;
  let tokenChanged: ((cacheKey: string) => void) | undefined;

  async function playerWithSession(name: string) {
    const user = await core.store.createUser(newPlatformUser("wechat", `openid-${name}`, "example.invalid", new Date(core.clock.ms)), [
      { platform: "wechat", platformId: `openid-${name}` },
    ]);
    const first = await core.sessions.startSession(user, "default", "full");
    return { user, first };
  }

  /** A player with a session, seated in a room the guard knows, and nothing published yet. */
  async function seatedPlayer(name: string) {
    const { user, first } = await playerWithSession(name);
    const room = new SeatsRoom([{ userId: user.id, sid: first.sid }]);
    guard.register(room);
    await settle();
    presence.published.length = 0;
    return { user, first, room };
  }

  beforeEach(async () => {
    core = unitSessions();
    presence = new RecordingPresence();
    forgotten.length = 0;
    forgottenTokens.length = 0;
    guard = new RoomSessionGuard(presence, core.sessions, createLogger({ level: "silent" }), {
      recentUsers: { forget: (id: string) => void forgotten.push(id) },
      userChanges: { on: (listener: (userId: string) => void) => void (userChanged = listener) },
      platformTokens: {
        onTokenChange: (listener: (cacheKey: string) => void) => void (tokenChanged = listener),
        forgetCopy: (cacheKey: string) => void forgottenTokens.push(cacheKey),
      },
    });
    await guard.start();
    await settle(); // the first sessions' announcements (none replaced anything: nothing sent)
  });

  afterEach(() => guard.stop());

  it("publishes the sessions ended in one event-loop turn as one message, and every process re-checks each user in it", async () => {
    const players = await Promise.all(["ann", "bob", "cat", "dan"].map(playerWithSession));
    const room = new SeatsRoom(players.map((p) => ({ userId: p.user.id, sid: p.first.sid })));
    guard.register(room);
    await settle();
    presence.published.length = 0;

    // Second logins in the same turn: each ends the player's first session.
    await Promise.all(players.map((p) => core.sessions.startSession(p.user, "default", "full")));
    await settle();

    assert.equal(presence.published.length, 1, "one publish for the whole turn");
    assert.deepEqual(presence.published[0], { batch: players.map((p) => p.user.id) });
    assert.deepEqual(
      room.dropped.map((d) => d.userId).sort(),
      players.map((p) => p.user.id).sort(),
      "every user of the batch lost the seat of the ended session",
    );
  });

  it("sends a lone change as a plain message, as processes of the previous version and `npm run admin` send it", async () => {
    const { user, first, room } = await seatedPlayer("eve");

    await core.sessions.endSession(user.id, "logout");
    await settle();

    assert.deepEqual(presence.published, [user.id]);
    assert.deepEqual(room.dropped, [{ userId: user.id, sid: first.sid }]);
  });

  it("publishes a user change at once, before the write's caller goes on, with the session changes pending before it", async () => {
    const { user, first, room } = await seatedPlayer("fay");

    // What a disable does: the session ends, and the record changes; both in one turn.
    await core.sessions.endSession(user.id, "user_disabled");
    userChanged?.(user.id);
    assert.deepEqual(presence.published, [{ batch: [user.id, userChangedMessage(user.id)] }], "sent within the same turn");

    await settle();
    assert.equal(presence.published.length, 1, "nothing left to send");
    assert.ok(forgotten.includes(user.id), "the user record was forgotten");
    assert.ok(room.dropped.length >= 1, "the seat of the ended session was dropped");
  });

  it("publishes a platform token change at once, and every process drops its copy of that token", async () => {
    tokenChanged?.("platform_access_token:wechat:wx123");
    assert.deepEqual(presence.published, [platformTokenChangedMessage("platform_access_token:wechat:wx123")], "sent within the same turn");
    assert.deepEqual(forgottenTokens, ["platform_access_token:wechat:wx123"]);
  });

  it("reads a batch another process sent, and single messages from the admin command line", async () => {
    const a = await playerWithSession("gus");
    const b = await playerWithSession("hal");
    const room = new SeatsRoom([
      { userId: a.user.id, sid: a.first.sid },
      { userId: b.user.id, sid: b.first.sid },
    ]);
    guard.register(room);
    await core.cache.delete(`access_token:${a.user.id}`, `refresh_token:${a.user.id}`);
    await core.cache.delete(`access_token:${b.user.id}`, `refresh_token:${b.user.id}`);

    presence.publish(SESSION_CHANGED_TOPIC, { batch: [a.user.id, { unknown: "shape" }, 42] });
    presence.publish(SESSION_CHANGED_TOPIC, userChangedMessage(b.user.id));
    await settle();

    assert.deepEqual(room.dropped.map((d) => d.userId).sort(), [a.user.id, b.user.id].sort());
    assert.deepEqual(forgotten, [b.user.id]);
  });

  it("publishes what is pending when it stops, before it stops listening", async () => {
    const { user } = await playerWithSession("ivy");
    await settle();
    presence.published.length = 0;

    await core.sessions.endSession(user.id, "logout");
    guard.stop(); // in the same turn: shutdown must not swallow the announcement

    assert.deepEqual(presence.published, [user.id]);
  });
});
