/** DOUYIN_LIVE_* settings: one secret per message type, and what production refuses. */
import assert from "node:assert/strict";
import { douyinLiveConfig, douyinLiveProblems, douyinLiveShape } from "../../src/config/settings/douyin-live";
import { z } from "zod";

const parse = (env: Record<string, string>) => z.object(douyinLiveShape).parse(env);
const isPlaceholder = (v: string) => /change-?me/i.test(v);

describe("Douyin live settings", () => {
  it("keeps one secret per message type and takes only the types that have one", () => {
    const { douyinLive } = douyinLiveConfig(parse({ DOUYIN_LIVE_ENABLED: "true", DOUYIN_LIVE_SECRET_GIFT: "g", DOUYIN_LIVE_TOP_GIFTS: "a, b" }));
    assert.deepEqual(douyinLive.secrets, { live_comment: undefined, live_gift: "g", live_like: undefined, live_fansclub: undefined });
    assert.deepEqual(douyinLive.topGiftIds, ["a", "b"]);
    assert.equal(douyinLive.pushPath, "/douyin-live/push");
  });

  it("refuses a secret Douyin would not accept and a push path that is not one", () => {
    assert.throws(() => parse({ DOUYIN_LIVE_SECRET_GIFT: "x".repeat(100) }));
    assert.throws(() => parse({ DOUYIN_LIVE_SECRET_GIFT: "has space" }));
    assert.throws(() => parse({ DOUYIN_LIVE_PUSH_PATH: "no-slash" }));
  });

  it("needs a secret when enabled; production wants long, distinct, real ones", () => {
    assert.deepEqual(douyinLiveProblems(parse({}), true, isPlaceholder), []);
    assert.equal(douyinLiveProblems(parse({ DOUYIN_LIVE_ENABLED: "true" }), false, isPlaceholder).length, 1);
    const short = douyinLiveProblems(parse({ DOUYIN_LIVE_ENABLED: "true", DOUYIN_LIVE_SECRET_GIFT: "short" }), true, isPlaceholder);
    assert.deepEqual(short.map((p) => p.key), ["DOUYIN_LIVE_SECRET_GIFT"]);
    const same = "a-long-enough-secret-0123456789";
    const shared = douyinLiveProblems(parse({ DOUYIN_LIVE_ENABLED: "true", DOUYIN_LIVE_SECRET_GIFT: same, DOUYIN_LIVE_SECRET_LIKE: same }), true, isPlaceholder);
    assert.equal(shared.length, 1);
    assert.match(shared[0].message, /its own secret/);
    assert.deepEqual(douyinLiveProblems(parse({ DOUYIN_LIVE_ENABLED: "true", DOUYIN_LIVE_SECRET_GIFT: "change-me-0123456789" }), true, isPlaceholder).length, 1);
  });
});
