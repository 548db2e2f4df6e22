/**
 * examples/wechat-minigame/game.js as the platforms run it: a CommonJS module in a mini-game
 * context (wx, then tt), with a canvas that records what is drawn, against the real server.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { startHarness, type Harness } from "../support/app-harness";
import { ensureClientBuilt } from "../support/client-build";
import { FakeDevice } from "./fake-platform";
import { createMiniGameContext, type MiniGamePlatform } from "./runtime-context";

const EXAMPLE = path.resolve(__dirname, "../../examples/wechat-minigame/game.js");

describe("the example mini-game (examples/wechat-minigame)", function () {
  this.timeout(30_000);
  let h: Harness;
  let dropIn: string;
  before(async () => {
    dropIn = ensureClientBuilt();
    h = await startHarness();
  });
  after(async () => h?.close());

  for (const platform of ["wechat", "douyin"] as MiniGamePlatform[]) {
    it(`logs in, joins the lobby and shows a tap's chat line (${platform})`, async () => {
      const device = new FakeDevice(`example${platform}${Date.now().toString(36)}`);
      const game = createMiniGameContext(platform, device, dropIn);
      const drawn: string[] = [];
      let tap: (() => void) | undefined;
      const api = game.run(platform === "wechat" ? "wx" : "tt") as Record<string, unknown>;
      api.createCanvas = () => ({
        width: 375,
        height: 667,
        getContext: () => ({ fillRect() {}, fillText: (text: string) => drawn.push(text), fillStyle: "", font: "" }),
      });
      api.onTouchStart = (listener: () => void) => (tap = listener);

      // The game's `require("./minigame-client.js")` gets the drop-in file's exports; SERVER points at the test server.
      const source = fs.readFileSync(EXAMPLE, "utf8").replace('"http://127.0.0.1:2567"', JSON.stringify(h.baseUrl));
      const run = vm.runInContext(`(function (require) {${source}\n})`, game.context, { filename: EXAMPLE }) as (r: (name: string) => unknown) => void;
      run((name) => {
        assert.equal(name, "./minigame-client.js");
        return game.library;
      });

      const until = async (pattern: RegExp) => {
        for (let i = 0; i < 200 && !drawn.some((line) => pattern.test(line)); i++) await new Promise((r) => setTimeout(r, 25));
        assert.ok(drawn.some((line) => pattern.test(line)), `expected ${pattern} among ${JSON.stringify([...new Set(drawn)])}`);
      };
      await until(/^In the lobby/);
      assert.ok(tap, "the game listens for taps");
      tap();
      await until(/^mg_\w+: hello at /);
      assert.equal(device.loginCalls, 1);
    });
  }
});
