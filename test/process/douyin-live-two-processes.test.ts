/**
 * Douyin live pushes over two server processes sharing the database and Redis: the streamer's room
 * lives in one, pushes (and their duplicates, sent to the other process) arrive at both, and every
 * gift reaches the room exactly once; a second launch from the other process finds the same room.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { storeBackends } from "../support/backends";
import { startServerProcesses, type ServerProcess } from "../support/server-process";

const JWT = "douyin-live-two-process-tests-jwt-secret-0123456789";
const SECRETS = { live_comment: "comment-secret-0123456789", live_gift: "gift-secret-0123456789", live_like: "like-secret-0123456789" };
const backends = storeBackends.filter((b) => !b.name.startsWith("embedded"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of backends) {
  describe(`Douyin live over two processes: ${backend.name}`, function () {
    this.timeout(180_000);
    let sim: RunningSimulator;
    let release: () => Promise<void>;
    let servers: ServerProcess[] = [];
    let room: Room | undefined;
    const control = (path: string, body: unknown) => fetch(`${sim.url}/__simulator/douyin-live/${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);

    before(async () => {
      sim = await startSimulator({ port: 0 });
      const prepared = await backend.prepare();
      release = prepared.release;
      const env = {
        NODE_ENV: "test",
        JWT_SECRET: JWT,
        LOG_LEVEL: "warn",
        // Seats name the process holding the room, so a client matched by the other process reaches it.
        PUBLIC_ADDRESS: "127.0.0.1:{port}",
        ...simulatorPlatformEnv(sim.url),
        ...prepared.env,
        DOUYIN_LIVE_ENABLED: "true",
        DOUYIN_LIVE_API_BASE_URL: sim.url,
        // A push Douyin counts failed (late on a loaded machine) comes back through the failed-data query.
        DOUYIN_LIVE_FAILED_DATA_POLL_SEC: "5",
        DOUYIN_LIVE_SECRET_COMMENT: SECRETS.live_comment,
        DOUYIN_LIVE_SECRET_GIFT: SECRETS.live_gift,
        DOUYIN_LIVE_SECRET_LIKE: SECRETS.live_like,
      };
      servers = await startServerProcesses(env, 2);
    });
    after(async () => {
      await room?.leave().catch(() => undefined);
      await Promise.all(servers.map((s) => s.stop()));
      await sim?.close();
      await release?.();
    });

    async function launch(server: ServerProcess, token: string): Promise<{ live_room_id: string; ticket: string }> {
      const res = await fetch(`${server.baseUrl}/api/douyin-live/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
      const body = (await res.json()) as { data: { live_room_id: string; ticket: string } };
      assert.equal(res.status, 200, JSON.stringify(body));
      return body.data;
    }

    it("delivers every gift once with duplicates pushed to both processes", async () => {
      const { token, roomId } = await control("streamer", { name: "two-process" });
      const first = await launch(servers[0], token);
      room = await new Client(servers[0].baseUrl).joinOrCreate("douyin_live", { liveRoomId: roomId, ticket: first.ticket });
      const gifts: string[] = [];
      room.onMessage("gift", (g: { msgId: string }) => gifts.push(g.msgId));
      room.onMessage("*", () => undefined);
      // A second launch from the other process reaches the same room.
      const again = await launch(servers[1], token);
      const second = await new Client(servers[1].baseUrl).joinOrCreate("douyin_live", { liveRoomId: roomId, ticket: again.ticket });
      assert.equal(second.roomId, room.roomId);
      await second.leave();
      await control("register", { urls: servers.map((s) => `${s.baseUrl}/api/douyin-live/push`), secrets: SECRETS });
      const report = await control("emit", { roomId, gifts: 200, comments: 100, ratePerSec: 100, duplicateRate: 0.1 });
      assert.ok(report.duplicates > 0);
      // Every gift once: pushed, or (a push answered late or not at all) read from the failed data.
      for (let i = 0; i < 200 && gifts.length < report.giftIds.length; i++) await sleep(100);
      await sleep(300);
      assert.deepEqual([...gifts].sort(), [...report.giftIds].sort());
    });
  });
}
