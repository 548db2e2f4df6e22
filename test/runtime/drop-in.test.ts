/**
 * The drop-in file in a bare `node:vm` context: it loads and works without any global polyfill,
 * and installs none (a game's other code sees the runtime as it was).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import vm from "node:vm";
import { ensureClientBuilt } from "../support/client-build";
import { FakeDevice } from "./fake-platform";
import { ABSENT_GLOBALS, createMiniGameContext } from "./runtime-context";

describe("the drop-in client file", () => {
  let dropIn: string;
  before(() => {
    dropIn = ensureClientBuilt();
  });

  it("loads as a plain script into a context with only ECMAScript built-ins, console and timers, adding one global", () => {
    const context = vm.createContext({ console, setTimeout, clearTimeout, setInterval, clearInterval });
    const before = vm.runInContext("Object.getOwnPropertyNames(globalThis).sort().join()", context) as string;
    vm.runInContext(fs.readFileSync(dropIn, "utf8"), context, { filename: dropIn });
    const after = (vm.runInContext("Object.getOwnPropertyNames(globalThis).sort()", context) as string[]).filter((name) => name !== "MinigameClient");
    assert.equal(after.join(), before, "no global but MinigameClient was added or replaced");
    assert.equal(vm.runInContext("typeof MinigameClient.createGameClient", context), "function");
    for (const name of ABSENT_GLOBALS) assert.equal(vm.runInContext(`typeof ${name}`, context), "undefined", `${name} stays absent`);
  });

  it("loads as a CommonJS module (a mini-game's require) without touching the global object", () => {
    const device = new FakeDevice("dropin");
    const game = createMiniGameContext("wechat", device, dropIn);
    assert.equal(typeof game.library.createGameClient, "function");
    assert.equal(game.run("typeof MinigameClient"), "undefined", "module.exports, not a global, in a module");
    for (const name of ABSENT_GLOBALS) assert.equal(game.run(`typeof ${name}`), "undefined", `${name} stays absent`);
    // The client picks the runtime up by itself from `wx`, and builds its socket URL without `URL`.
    const client = game.library.createGameClient({ server: "https://game.example.com:8443/arena/" });
    assert.equal(client.runtime.platform, "wechat");
    assert.equal(client.endpoint.httpBase, "https://game.example.com:8443/arena");
  });

  it("refuses to start outside a mini-game runtime without an explicit runtime", () => {
    const context = vm.createContext({ console, setTimeout });
    vm.runInContext(fs.readFileSync(dropIn, "utf8"), context);
    assert.throws(() => vm.runInContext('MinigameClient.createGameClient({ server: "https://x.example" })', context), /no mini-game runtime/);
  });
});
