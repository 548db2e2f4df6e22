/**
 * Douyin live over two server processes, both receiving Douyin's pushes, when the process that holds
 * the streamer's game room is killed with kill -9 mid-stream. The game launches again when its room
 * connection is lost (docs/douyin-live.md says games should) and joins a new `douyin_live` room on the survivor;
 * a replacement receiver comes up on another address (Douyin's push settings then name it). Every gift
 * reaches the game: those the dead process never answered come back from the failed-data query, those
 * published while no room or no client was there from the ledger's redelivery (the room confirms a gift
 * only once a client had it). A gift can arrive twice only when the kill fell between the room sending
 * it and confirming it; the game client's own `douyinLive` drops those. The 60 s / 100 msg/s version
 * with latencies is `npm run bench -- --only douyin-live`.
 */
import assert from "node:assert/strict";
import { Client, type Room } from "@colyseus/sdk";
import { simulatorPlatformEnv, startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { storeBackends } from "../support/backends";
import { startServerProcess, type ServerProcess } from "../support/server-process";

const SECRETS = { live_comment: "comment-secret-0123456789", live_gift: "gift-secret-0123456789", live_like: "like-secret-0123456789" };
const backends = storeBackends.filter((b) => !b.name.startsWith("embedded"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of backends) {
  describe(`Douyin live with the game room's process killed mid-stream: ${backend.name}`, function () {
    this.timeout(180_000);
    let sim: RunningSimulator;
    let release: () => Promise<void>;
    let env: Record<string, string>;
    const servers: ServerProcess[] = [];
    const rooms: Room[] = [];
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
        // A busy machine (these suites share it) can take longer than the 800 ms default to connect,
        // and FerretDB under CI's load longer than 800 ms a statement: a gift whose ledger calls kept
        // timing out waited past the test's minute (CI, once; not seen in three runs alone).
        DATABASE_CONNECT_TIMEOUT_MS: "10000",
        DATABASE_QUERY_TIMEOUT_MS: "5000",
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
      servers.push(...(await Promise.all([startServerProcess(env, 120_000), startServerProcess(env, 120_000)])));
    });
    after(async () => {
      for (const room of rooms) await Promise.race([room.leave().catch(() => undefined), sleep(2000)]);
      await Promise.all(servers.map((s) => s.stop()));
      await sim?.close();
      await release?.();
    });

    it("every gift reaches the game that launched again on the survivor; no comment or like twice", async () => {
      const { token, roomId: liveRoomId } = await control("streamer", { name: `kill-${Date.now()}` });
      const gifts: string[] = [];
      /** What the first room sent before its process died: the only gifts that may come twice. */
      let fromFirstRoom: string[] = [];
      const others: string[] = [];
      /** Launches and joins through `via`; answers the room and the process it runs on. */
      const launch = async (via: ServerProcess) => {
        const session = (await (await fetch(`${via.baseUrl}/api/douyin-live/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) })).json()) as any;
        if (!session.success) throw new Error(`launch: ${JSON.stringify(session)}`);
        const res = await fetch(`${via.baseUrl}/matchmake/joinOrCreate/douyin_live`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ liveRoomId, ticket: session.data.ticket }) });
        const reservation = (await res.json()) as { publicAddress?: string; error?: string };
        if (!res.ok || !reservation.publicAddress) throw new Error(`join: ${res.status} ${JSON.stringify(reservation)}`);
        const room = await new Client(via.baseUrl).consumeSeatReservation(reservation as never);
        rooms.push(room);
        room.onMessage("gift", (g: { msgId: string }) => gifts.push(g.msgId));
        for (const type of ["comment", "like"]) room.onMessage(type, (m: { msgId: string }) => others.push(m.msgId));
        room.onMessage("*", () => undefined);
        return { room, host: servers.find((s) => s.baseUrl.endsWith(`:${reservation.publicAddress!.split(":").pop()}`))! };
      };

      const first = await launch(servers[0]);
      const victim = first.host;
      const survivor = servers.find((s) => s !== victim)!;
      await control("register", { urls: [pushUrl(survivor), pushUrl(victim)], secrets: SECRETS });
      const lost = new Promise<number>((resolve) => first.room.onLeave((code: number) => resolve(code)));

      // 500 messages at 50/s: about 10 s of stream; the game room's process dies 3 s in.
      const emitted = control("emit", { roomId: liveRoomId, gifts: 150, comments: 150, likes: 200, ratePerSec: 50, duplicateRate: 0.05, lostLikeRate: 0.1 });
      await sleep(3000);
      victim.child.kill("SIGKILL");
      await victim.exited;
      const heardBeforeKill = gifts.length;
      fromFirstRoom = [...gifts];
      assert.notEqual(await lost, 4000, "the game saw its room connection lost");
      const back = await startServerProcess(env, 120_000);
      servers.push(back);
      await control("register", { urls: [pushUrl(survivor), pushUrl(back)], secrets: SECRETS });

      // The game launches again until a room takes it (the dead room's binding lapses within 30 s).
      const relaunchedAt = Date.now();
      let again: Awaited<ReturnType<typeof launch>> | undefined;
      for (let i = 0; !again && Date.now() - relaunchedAt < 60_000; i++) {
        again = await launch(survivor).catch(async () => void (await sleep(1000)));
      }
      assert.ok(again, "the game found a room again within 60 s");
      const report = await emitted;
      assert.equal(report.giftIds.length, 150, "Douyin pushed the whole stream: no refused room stopped the push tasks");
      assert.ok(report.failedGifts > 0, `the kill lost pushes to the failed data: ${JSON.stringify({ failed: report.failed, failedGifts: report.failedGifts })}`);
      for (let i = 0; i < 600 && new Set(gifts).size < report.giftIds.length; i++) await sleep(100);
      await sleep(1000);

      const received = new Set(gifts);
      const missing = report.giftIds.filter((id: string) => !received.has(id));
      const facts = JSON.stringify({ emitted: report.giftIds.length, beforeKill: heardBeforeKill, received: gifts.length, missing: missing.length, backAfterMs: Date.now() - relaunchedAt, failedGifts: report.failedGifts });
      assert.deepEqual(missing, [], `every gift reached the game: ${facts}`);
      assert.ok(gifts.every((id) => report.giftIds.includes(id)), "nothing but the emitted gifts");
      const repeated = gifts.filter((id, i) => gifts.indexOf(id) !== i);
      assert.ok(repeated.every((id) => fromFirstRoom.includes(id)), `only gifts the dead room had sent arrive again: ${facts}`);
      assert.equal(new Set(others).size, others.length, "no comment or like twice");
      assert.ok(others.every((id) => report.otherIds.includes(id)));
    });
  });
}
