import assert from "node:assert/strict";
import { WECHAT_INTERACTIVE_LIMITS, WECHAT_STORAGE_LIMITS } from "../../src/platforms/wechat/wechat-social";
import { DOUYIN_STORAGE_LIMITS } from "../../src/platforms/douyin/douyin-social";
import { interactiveDataProblems, storageRemovalProblems, storageWriteProblems } from "../../src/services/social/storage-limits";

const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: "1" }));
const fields = (problems: Array<{ field: string }>) => problems.map((p) => p.field);

describe("player storage limits", () => {
  it("accepts 1–128 keys and refuses 0 or 129", () => {
    assert.deepEqual(storageWriteProblems(entries(128), WECHAT_STORAGE_LIMITS), []);
    assert.deepEqual(fields(storageWriteProblems(entries(129), WECHAT_STORAGE_LIMITS)), ["kvList"]);
    assert.deepEqual(fields(storageWriteProblems([], WECHAT_STORAGE_LIMITS)), ["kvList"]);
  });

  it("counts UTF-8 bytes: a key of 128 bytes passes, 129 does not; key + value at most 1024", () => {
    assert.deepEqual(storageWriteProblems([{ key: "k".repeat(128), value: "v".repeat(896) }], WECHAT_STORAGE_LIMITS), []);
    assert.deepEqual(fields(storageWriteProblems([{ key: "k".repeat(129), value: "" }], WECHAT_STORAGE_LIMITS)), ["kvList[0].key"]);
    // 43 three-byte characters are 129 bytes though only 43 characters.
    assert.deepEqual(fields(storageWriteProblems([{ key: "分".repeat(43), value: "" }], WECHAT_STORAGE_LIMITS)), ["kvList[0].key"]);
    assert.deepEqual(fields(storageWriteProblems([{ key: "k", value: "v".repeat(1024) }], WECHAT_STORAGE_LIMITS)), ["kvList[0].value"]);
  });

  it("refuses empty, control-character and repeated keys, naming the entry", () => {
    const problems = storageWriteProblems(
      [
        { key: "", value: "a" },
        { key: "a\nb", value: "a" },
        { key: "same", value: "1" },
        { key: "same", value: "2" },
      ],
      WECHAT_STORAGE_LIMITS,
    );
    assert.deepEqual(fields(problems), ["kvList[0].key", "kvList[1].key", "kvList[3].key"]);
  });

  it("checks the ranking value format of the platform's wrapper, and leaves other values alone", () => {
    const ok = JSON.stringify({ wxgame: { score: 42, update_time: 1_700_000_000 } });
    assert.deepEqual(storageWriteProblems([{ key: "score", value: ok }], WECHAT_STORAGE_LIMITS), []);
    for (const bad of [{ wxgame: { score: 1.5, update_time: 1 } }, { wxgame: { score: 1 } }, { wxgame: "9" }, { wxgame: { score: 1, update_time: -1 } }]) {
      assert.deepEqual(fields(storageWriteProblems([{ key: "score", value: JSON.stringify(bad) }], WECHAT_STORAGE_LIMITS)), ["kvList[0].value"], JSON.stringify(bad));
    }
    for (const free of ["plain text", "[1,2]", JSON.stringify({ other: 1 }), JSON.stringify({ ttgame: "x" })]) {
      assert.deepEqual(storageWriteProblems([{ key: "k", value: free }], WECHAT_STORAGE_LIMITS), [], free);
    }
    // Douyin's wrapper is its own.
    assert.deepEqual(fields(storageWriteProblems([{ key: "k", value: JSON.stringify({ ttgame: "x" }) }], DOUYIN_STORAGE_LIMITS)), ["kvList[0].value"]);
  });

  it("removal takes 1–128 valid keys", () => {
    assert.deepEqual(storageRemovalProblems(["a", "b"], WECHAT_STORAGE_LIMITS), []);
    assert.deepEqual(fields(storageRemovalProblems([], WECHAT_STORAGE_LIMITS)), ["keys"]);
    assert.deepEqual(fields(storageRemovalProblems(entries(129).map((e) => e.key), WECHAT_STORAGE_LIMITS)), ["keys"]);
    assert.deepEqual(fields(storageRemovalProblems(["ok", ""], WECHAT_STORAGE_LIMITS)), ["keys[1]"]);
  });

  it("interactive data: keys \"1\"…\"50\" once each, integer values in range", () => {
    assert.deepEqual(interactiveDataProblems([{ key: "1", value: 0 }, { key: "50", value: 2 ** 31 - 1 }], WECHAT_INTERACTIVE_LIMITS), []);
    const problems = interactiveDataProblems(
      [
        { key: "0", value: 1 },
        { key: "51", value: 1 },
        { key: "2", value: 1.5 },
        { key: "3", value: -1 },
        { key: "4", value: 2 ** 31 },
      ],
      WECHAT_INTERACTIVE_LIMITS,
    );
    assert.deepEqual(fields(problems), ["kvList[0].key", "kvList[1].key", "kvList[2].value", "kvList[3].value", "kvList[4].value"]);
  });
});
