/** The game client's `requestSubscribe`: the runtime's prompt, its answer per template, and no server call. */
import assert from "node:assert/strict";
import { GameClient } from "../../client/src/game-client";
import { memoryStorage } from "../../client/src/runtime";
import { miniGameRuntime, type MiniGameApi } from "../../client/src/runtimes/minigame-runtime";
import { webRuntime } from "../../client/src/runtimes/web-runtime";

function fakeApi(answer: (ids: string[]) => { ok: Record<string, unknown> } | { errMsg: string; errCode?: number }) {
  const prompts: string[][] = [];
  const requests: string[] = [];
  const storage = memoryStorage();
  const api: MiniGameApi = {
    login: () => undefined,
    request: (options) => void requests.push(options.url),
    connectSocket: () => {
      throw new Error("no sockets here");
    },
    getStorageSync: (key) => storage.get(key) ?? "",
    setStorageSync: (key, value) => storage.set(key, value),
    removeStorageSync: (key) => storage.remove(key),
    requestSubscribeMessage: ({ tmplIds, success, fail }) => {
      prompts.push(tmplIds);
      const result = answer(tmplIds);
      setTimeout(() => ("ok" in result ? success?.(result.ok) : fail?.(result)), 0);
    },
  };
  return { api, prompts, requests };
}

describe("game client requestSubscribe", () => {
  it("shows the prompt and resolves each template's decision; nothing goes to the server", async () => {
    const { api, prompts, requests } = fakeApi((ids) => ({ ok: { errMsg: "requestSubscribeMessage:ok", [ids[0]]: "accept", [ids[1]]: "reject" } }));
    const client = new GameClient({ server: "https://game.example.com", runtime: miniGameRuntime(api, "wechat") });
    assert.deepEqual(await client.requestSubscribe(["tpl-a", "tpl-b", "tpl-c"]), { "tpl-a": "accept", "tpl-b": "reject", "tpl-c": "reject" });
    assert.deepEqual(prompts, [["tpl-a", "tpl-b", "tpl-c"]]);
    assert.deepEqual(requests, []);
  });

  it("refuses 0 or more than 3 templates before prompting, and reports a failed prompt", async () => {
    const { api, prompts } = fakeApi(() => ({ errMsg: "requestSubscribeMessage:fail can only be invoked by user TAP gesture.", errCode: 20004 }));
    const client = new GameClient({ server: "https://game.example.com", runtime: miniGameRuntime(api, "douyin") });
    await assert.rejects(client.requestSubscribe([]), /1–3 template ids/);
    await assert.rejects(client.requestSubscribe(["a", "b", "c", "d"]), /1–3 template ids/);
    assert.equal(prompts.length, 0);
    await assert.rejects(client.requestSubscribe(["a"]), /TAP gesture.*20004/);
  });

  it("a runtime without a prompt says so", async () => {
    const { api } = fakeApi(() => ({ ok: {} }));
    delete api.requestSubscribeMessage;
    await assert.rejects(new GameClient({ server: "https://g.example.com", runtime: miniGameRuntime(api, "kuaishou") }).requestSubscribe(["a"]), /no subscribe prompt/);
    await assert.rejects(new GameClient({ server: "https://g.example.com", runtime: webRuntime({ platform: "wechat" }) }).requestSubscribe(["a"]), /no subscribe prompt/);
  });
});
