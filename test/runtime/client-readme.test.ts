/**
 * client/README.md's Node example, run as written (its imports resolved to the built client and to
 * `ws`) against the real server with the embedded simulator: it logs in, joins, chats, buys with
 * coins and in the (stubbed) payment UI. Then the network drops under it and the same room comes back.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import WebSocket from "ws";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { importsAsRequires, readmeExample } from "../support/readme-examples";

const README = path.resolve(__dirname, "../../client/README.md");
const LIBRARY = path.resolve(__dirname, "../../client/dist/index.cjs");

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("client/README.md's Node example", function () {
  this.timeout(60_000);
  let h: Harness;
  before(async () => {
    ensureClientBuilt();
    h = await startHarness({ env: { PLATFORM_SIMULATOR: "embedded", PLATFORMS: "wechat,douyin", PLAYGROUND_ENABLED: "true" } });
  });
  after(async () => h?.close());

  it("logs in, joins, chats, buys with coins and in the payment UI, and survives a dropped connection", async () => {
    const sockets: WebSocket[] = [];
    class TrackedWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        sockets.push(this);
      }
    }
    const modules: Record<string, unknown> = { "minigame-client": require(LIBRARY), ws: TrackedWebSocket };
    const lines: string[] = [];
    const console = { log: (...args: unknown[]) => lines.push(args.join(" ")), warn: () => undefined, error: (...args: unknown[]) => lines.push(`error: ${args.join(" ")}`) };
    const code = importsAsRequires(readmeExample(README, "node"), "__require");
    const run = new Function("__require", "process", "console", `return (async () => {\n${code}\nreturn { client, room, user };\n})();`);
    const { room, user } = await run((name: string) => modules[name], { env: { GAME_SERVER: h.baseUrl } }, console);

    const has = (pattern: RegExp) => lines.some((l) => pattern.test(l));
    assert.ok(has(/^logged in as mg_wechat_/), lines.join("\n"));
    await until(() => has(/^chat: .+: hello from Node$/), "the chat line");
    assert.ok(has(/^coins order sword-\d+: delivered, balance 70$/), lines.join("\n"));
    assert.ok(has(/^item order shield-\d+: shield delivered$/), lines.join("\n"));
    await until(() => has(/^delivered in the room: shield$/), "the room's purchase message");

    // The network drops: the example's room comes back by itself, the same object and seat.
    const seat = room.sessionId;
    for (const socket of sockets) socket.terminate();
    await until(() => has(/^reconnected after \d+ ms$/), "the reconnection");
    assert.ok(has(/^reconnecting \(attempt 1\)$/), lines.join("\n"));
    assert.equal(room.sessionId, seat);
    room.send("chat", { text: "still here" });
    await until(() => has(/^chat: .+: still here$/), "a chat after the reconnection");
    assert.ok(!has(/the seat is gone|^error:/), lines.join("\n"));
    assert.match(user.id, /^[0-9a-f-]{36}$/);
  });

  it("names in the package only what exists: files, entry points and exports", () => {
    const dir = path.dirname(README);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    const exportTargets = (value: unknown): string[] =>
      typeof value === "string" ? [value] : value && typeof value === "object" ? Object.values(value).flatMap(exportTargets) : [];
    const named = [...pkg.files, pkg.main, pkg.module, pkg.types, pkg.unpkg, ...exportTargets(pkg.exports)];
    const missing = named.filter((file: string) => !fs.existsSync(path.join(dir, file)));
    assert.deepEqual(missing, []);
  });
});
