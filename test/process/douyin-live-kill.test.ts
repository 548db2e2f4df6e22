/**
 * Douyin live over two receiver processes while one of them is killed with kill -9 mid-stream and
 * comes back a few seconds later on another address (Douyin's push settings then name it): every
 * gift reaches the streamer's room exactly once — those the dead receiver never answered come back
 * from the failed-data query, those it recorded but had not delivered from the other process's sweep —
 * and no comment or like arrives twice. The 60 s / 100 msg/s version with latencies is `npm run bench
 * -- --only douyin-live`.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { storeBackends } from "../support/backends";
import { startServerProcess, type ServerProcess } from "../support/server-process";

const SECRETS = { live_comment: "comment-secret-0123456789", live_gift: "gift-secret-0123456789", live_like: "like-secret-0123456789" };
const backends = storeBackends.filter((b) => !b.name.startsWith("embedded"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const duplicates = (ids: string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

for (const backend of backends) {
  describe(`Douyin live with a receiver killed mid-stream: ${backend.name}`, function () {
    this.timeout(180_000);
    let sim: RunningSimulator;
    let release: () => Promise<void>;
    let env: Record<string, string>;
    const servers: ServerProcess[] = [];
    let room: Room | undefined;
    const control = (path: string, body: unknown) => fetch(`${sim.url}/__simulator/douyin-live/${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
    const pushUrl = (s: ServerProcess) => `${s.baseUrl}/api/douyin-live/push`;

    before(async () => {
      sim = await startSimulator({ port: 0 });
      const prepared = await backend.prepare();
      release = prepared.release;
      env = {
        NODE_ENV: "test",
        JWT_SECRET: "douyin-live-kill-tests-jwt-secret-0123456789",
        LOG_LEVEL: "warn",
        // A busy machine (these suites share it) can take longer than the 800 ms default to connect.
        DATABASE_CONNECT_TIMEOUT_MS: "10000",
        PUBLIC_ADDRESS: "127.0.0.1:{port}",
        ...simulatorPlatformEnv(sim.url),
        ...prepared.env,
        DOUYIN_LIVE_ENABLED: "true",
        DOUYIN_LIVE_API_BASE_URL: sim.url,
        DOUYIN_LIVE_FAILED_DATA_POLL_SEC: "5",
        DOUYIN_LIVE_SECRET_COMMENT: SECRETS.live_comment,
        DOUYIN_LIVE_SECRET_GIFT: SECRETS.live_gift,
        DOUYIN_LIVE_SECRET_LIKE: SECRETS.live_like,
      };
      // Slow to start on a busy machine: each process compiles through tsx.
      servers.push(...(await Promise.all([startServerProcess(env, 120_000), startServerProcess(env, 120_000)])));
    });
    after(async () => {
      await Promise.race([room?.leave().catch(() => undefined), sleep(5000)]);
      await Promise.all(servers.map((s) => s.stop()));
      await sim?.close();
      await release?.();
    });

    it("delivers every gift exactly once across the kill, and no comment or like twice", async () => {
      const [host, victim] = servers;
      const { token, roomId } = await control("streamer", { name: `kill-${Date.now()}` });
      const launch = () => fetch(`${host.baseUrl}/api/douyin-live/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) }).then((r) => r.json() as Promise<any>);
      const join = async () => new Client(host.baseUrl).joinOrCreate("douyin_live", { liveRoomId: roomId, ticket: (await launch()).data.ticket });
      // A seat reservation can lapse on a machine this busy, spending the one-use ticket: a game launches again.
      room = await join().catch(() => join());
      const gifts: string[] = [];
      const others: string[] = [];
      room.onMessage("gift", (g: { msgId: string }) => gifts.push(g.msgId));
      for (const type of ["comment", "like"]) room.onMessage(type, (m: { msgId: string }) => others.push(m.msgId));
      room.onMessage("*", () => undefined);
      await control("register", { urls: [pushUrl(host), pushUrl(victim)], secrets: SECRETS });

      // 500 messages at 50/s: about 10 s of stream.
      const emitted = control("emit", { roomId, gifts: 150, comments: 150, likes: 200, ratePerSec: 50, duplicateRate: 0.05, lostLikeRate: 0.1 });
      await sleep(3000);
      victim.child.kill("SIGKILL");
      await victim.exited;
      const back = await startServerProcess(env, 120_000);
      servers.push(back);
      await control("register", { urls: [pushUrl(host), pushUrl(back)], secrets: SECRETS });
      const report = await emitted;

      assert.ok(report.failedGifts > 0, `the kill lost pushes to the failed data: ${JSON.stringify({ failed: report.failed, failedGifts: report.failedGifts })}`);
      for (let i = 0; i < 600 && new Set(gifts).size < report.giftIds.length; i++) await sleep(100);
      await sleep(1000);
      assert.deepEqual(duplicates(gifts), [], "no gift twice");
      assert.deepEqual([...gifts].sort(), [...report.giftIds].sort(), "every gift, once");
      assert.deepEqual(duplicates(others), [], "no comment or like twice");
      assert.ok(others.every((id) => report.otherIds.includes(id)));
    });
  });
}
