/**
 * Douyin's feed direct play: the signature of its call and of our answer, the call's checks, and the
 * default source's reading of the saved scenes. The signature vectors are computed from the example
 * inputs of Douyin's signature page (server/feed-game/signature: appid tt411d37a0de37d565, openid
 * Bv-7RJnQcBqep1vT, nonce 356acp, timestamp 1717038098, secret ytbecedan) with Python's hashlib, not
 * given by the page (its expected output was not in what we could read); the same construction
 * reproduces Douyin's own live-push vector (test/unit/douyin-live-signature.test.ts).
 */
import assert from "node:assert/strict";
import { feedAnswerBody, feedSignature, readFeedPull, signFeedPull } from "../../src/platforms/douyin/douyin-feed";
import { DouyinFeed, readySavedScenes } from "../../src/services/growth/douyin-feed";

const EXAMPLE = new Map([
  ["appid", "tt411d37a0de37d565"],
  ["nonce", "356acp"],
  ["openid", "Bv-7RJnQcBqep1vT"],
  ["timestamp", "1717038098"],
]);
const SECRET = "ytbecedan";

describe("Douyin feed direct play", () => {
  it("signs the call and the answer as base64(md5(sorted query + body + secret))", () => {
    assert.equal(feedSignature(EXAMPLE, "", SECRET), "GmDFaaUJQ58AAatTmS+kzA==");
    const body = '{"err_no":0,"err_msg":"","data":{"scenes":[{"scene":1,"content_ids":["CONTENT963547906"],"extra":""}]}}';
    assert.equal(feedAnswerBody([{ scene: 1, contentIds: ["CONTENT963547906"] }]), body);
    assert.equal(feedSignature(EXAMPLE, body, SECRET), "/i7XsjYlzkxEA6+MgG0CRA==");
    // The order the parameters come in does not matter: they are sorted by name.
    assert.equal(feedSignature(new Map([...EXAMPLE].reverse()), "", SECRET), "GmDFaaUJQ58AAatTmS+kzA==");
  });

  it("accepts a call signed with the app's secret, and refuses forgeries, stale calls, repeats and unknown apps", () => {
    const secretOf = (appId: string) => (appId === "tt411d37a0de37d565" ? SECRET : undefined);
    const now = 1717038098;
    const read = (search: string, signature: string | undefined, at = now) => readFeedPull(new URLSearchParams(search), signature, secretOf, at);
    const good = read(new URLSearchParams([...EXAMPLE]).toString(), "GmDFaaUJQ58AAatTmS+kzA==");
    assert.ok(!("refused" in good));
    assert.deepEqual([good.appId, good.openid], ["tt411d37a0de37d565", "Bv-7RJnQcBqep1vT"]);

    const search = new URLSearchParams([...EXAMPLE]).toString();
    assert.deepEqual(read(search, "GmDFaaUJQ58AAatTmS+kzB=="), { refused: "bad_signature", appId: "tt411d37a0de37d565" });
    assert.deepEqual(read(search, undefined), { refused: "bad_signature", appId: "tt411d37a0de37d565" });
    assert.deepEqual(read(search.replace("Bv-7RJnQcBqep1vT", "someoneElse"), "GmDFaaUJQ58AAatTmS+kzA=="), { refused: "bad_signature", appId: "tt411d37a0de37d565" });
    assert.deepEqual(read(search, "GmDFaaUJQ58AAatTmS+kzA==", now + 3600), { refused: "stale_timestamp", appId: "tt411d37a0de37d565" });
    assert.deepEqual(read(`${search}&openid=other`, "GmDFaaUJQ58AAatTmS+kzA=="), { refused: "malformed" });
    assert.deepEqual(read("appid=tt411d37a0de37d565&nonce=1&timestamp=1717038098", "x"), { refused: "malformed", appId: "tt411d37a0de37d565" });
    const stranger = signFeedPull("ttstranger", "o1", SECRET, now);
    assert.deepEqual(read(stranger.search, stranger.signature), { refused: "unknown_app", appId: "ttstranger" });
  });

  it("names the saved scenes ready now, each once, and leaves out entries that do not fit", () => {
    const now = Date.parse("2026-11-29T12:00:00Z");
    const value = {
      scenes: [
        { scene: 2, contentIds: ["STAMINA1"], readyAt: "2026-11-29T11:00:00Z", extra: "stamina=5" },
        { scene: 1, contentIds: ["OFFLINE1", "OFFLINE2"] },
        { scene: 3, contentIds: ["DROP1"], readyAt: "2026-11-29T13:00:00Z" },
        { scene: 2, contentIds: ["STAMINA2"] },
        { scene: 4, contentIds: ["NOSUCH"] },
        { scene: 3, contentIds: [] },
        { scene: 3, contentIds: ["EXPIRED"], until: "2026-11-29T12:00:00Z" },
        { scene: 3, contentIds: ["BADDATE"], readyAt: "tomorrow" },
        { scene: 3, contentIds: [42] },
        "not an object",
      ],
    };
    assert.deepEqual(readySavedScenes(value, now), [
      { scene: 1, contentIds: ["OFFLINE1", "OFFLINE2"] },
      { scene: 2, contentIds: ["STAMINA1"], extra: "stamina=5" },
    ]);
    assert.deepEqual(readySavedScenes(value, Date.parse("2026-11-29T13:00:00Z")).map((s) => s.scene), [1, 2, 3]);
    assert.deepEqual(readySavedScenes({ scenes: "nope" }, now), []);
  });

  it("answers none when the scenes take longer than the deadline, and records only known players' pulls", async () => {
    const recorded: string[] = [];
    const feed = new DouyinFeed({
      userIdOf: async (_app, openid) => (openid === "known" || openid === "slow" ? `u-${openid}` : undefined),
      source: { readyScenes: async (_app, userId) => (userId === "u-slow" ? new Promise((resolve) => setTimeout(() => resolve([{ scene: 1, contentIds: ["C"] }]), 200)) : [{ scene: 2, contentIds: ["C2"] }]) },
      analytics: { record: (fact) => void recorded.push(`${fact.name}:${fact.userId}:${fact.props?.scenes}`) },
      deadlineMs: 50,
    });
    assert.deepEqual(await feed.answer("default", "known"), { scenes: [{ scene: 2, contentIds: ["C2"] }], player: "known" });
    assert.deepEqual(await feed.answer("default", "stranger"), { scenes: [], player: "unknown" });
    assert.deepEqual(await feed.answer("default", "slow"), { scenes: [], player: "late" });
    assert.deepEqual(recorded, ["douyin_feed_pull:u-known:2"]);
  });
});
