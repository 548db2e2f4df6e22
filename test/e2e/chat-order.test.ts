/**
 * A player's lobby chat is shown in the order it was sent, though each line waits on the mute read
 * and the platform's content check. Between the server and the simulator, a proxy holds the check
 * of the first line: if the second line's check is asked for meanwhile, the server was checking it
 * out of turn and would show it first (CI saw it so once, under load).
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Client, type Room } from "@colyseus/sdk";
import { startSimulator, type RunningSimulator } from "../../src/simulator/simulator-server";
import { startHarness, type Harness } from "../support/app-harness";
import { leaveRooms } from "../support/rooms";

const FIRST = "order-first-line";
const SECOND = "order-second-line";

/** Forwards to the simulator; a check of FIRST waits until SECOND's is asked for, or 1.5 s. */
async function holdingProxy(target: string) {
  let secondAsked = () => undefined as void;
  const secondSeen = new Promise<void>((resolve) => (secondAsked = resolve));
  const seen = { secondWhileFirstHeld: false, firstHeld: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const text = body.toString("utf8");
      if (text.includes(SECOND)) {
        if (seen.firstHeld) seen.secondWhileFirstHeld = true;
        secondAsked();
      }
      if (text.includes(FIRST)) {
        seen.firstHeld = true;
        await Promise.race([secondSeen, new Promise((r) => setTimeout(r, 1500))]);
        seen.firstHeld = false;
      }
      const answer = await fetch(target + req.url, { method: req.method, headers: { "content-type": req.headers["content-type"] ?? "application/json" }, body: body.length > 0 ? body : undefined });
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe("lobby chat keeps a player's order through the content check", function () {
  this.timeout(30_000);
  let simulator: RunningSimulator;
  let proxy: Awaited<ReturnType<typeof holdingProxy>>;
  let h: Harness;
  const rooms: Room[] = [];

  before(async () => {
    simulator = await startSimulator({ port: 0 });
    proxy = await holdingProxy(simulator.url);
    h = await startHarness({ simulator: { ...simulator, url: proxy.url } });
  });
  after(async () => {
    await leaveRooms(rooms);
    await h?.close();
    await proxy?.close();
    await simulator?.close();
  });

  it("shows the second line after the first, whose check took longer", async () => {
    const login = await h.get(`/api/minigame/wechat/login?jsCode=order-${Date.now()}`);
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const room = await new Client(h.baseUrl).joinOrCreate("lobby", { accessToken: login.body.data.token });
    rooms.push(room);
    const shown: string[] = [];
    room.onMessage("chat", (m: { text: string }) => shown.push(m.text));
    room.onMessage("*", () => undefined);
    room.send("chat", { text: FIRST });
    room.send("chat", { text: SECOND });
    for (let i = 0; i < 200 && shown.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(proxy.seen.secondWhileFirstHeld, false, "the second line was checked only once the first was done");
    assert.deepEqual(shown, [FIRST, SECOND]);
  });
});
