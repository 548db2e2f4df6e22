/**
 * Cloud saves end to end (issue 51): the real app on each backend. The routes' contract (201/200
 * with the new version, 409 version_conflict with the version now, 404 save_not_found, pages with a
 * cursor, deletes with a version), permissions on every route (another player's private object is
 * 404, a player's write to a server collection 403), batches all or none, limits and hostile names
 * and JSON refused with 400 and their codes — never a 5xx, nothing stored.
 */
import assert from "node:assert/strict";
import { startHarness, type Harness } from "../support/app-harness";
import { storeBackends } from "../support/backends";
import { freshPlayer, loginPath, platformDefinitions } from "../support/platforms";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const LIMITS = {
  SAVES_SERVER_COLLECTIONS: "progress",
  SAVES_MAX_OBJECTS_PER_PLAYER: "20",
  SAVES_MAX_OBJECT_BYTES: "2048",
  SAVES_MAX_REQUEST_BYTES: "32768",
  SAVES_MAX_DEPTH: "8",
  RATE_LIMIT_USER_MAX: "100000",
};

interface Player {
  token: string;
  user: { id: string };
}

for (const backend of storeBackends) {
  describe(`cloud saves — ${backend.name}`, function () {
    this.timeout(120_000);
    let h: Harness;
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await backend.prepare();
      release = prepared.release;
      h = await startHarness({ env: { ...prepared.env, ...LIMITS } });
    });
    after(async () => {
      await h?.close();
      await release?.();
    });

    async function login(): Promise<Player> {
      const wechat = platformDefinitions.find((p) => p.name === "wechat")!;
      const res = await h.get(loginPath(wechat, `${freshPlayer("sv")}.1`));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    }
    const call = (p: Player, method: string, url: string, body?: unknown) => h.request(method, url, body, bearer(p.token));
    const stored = (p: Player) => h.services.saves.listByOwner(p.user.id);

    it("creates (201), refuses a create over it and a stale version (409 with the version now), changes from the version read (200)", async () => {
      const p = await login();
      const created = await call(p, "PUT", "/api/saves/slots/one", { value: { level: 1 } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(Object.keys(created.body.data).sort(), ["collection", "key", "updatedAt", "version"]);
      assert.deepEqual([created.body.data.collection, created.body.data.key], ["slots", "one"]);
      const v1 = created.body.data.version;
      const again = await call(p, "PUT", "/api/saves/slots/one", { value: { level: 9 } });
      assert.deepEqual([again.status, again.body.data.code, again.body.data.version], [409, "version_conflict", v1]);
      const updated = await call(p, "PUT", "/api/saves/slots/one", { value: { level: 2 }, version: v1 });
      assert.equal(updated.status, 200);
      const v2 = updated.body.data.version;
      const stale = await call(p, "PUT", "/api/saves/slots/one", { value: { level: 3 }, version: v1 });
      assert.deepEqual([stale.status, stale.body.data.code, stale.body.data.version], [409, "version_conflict", v2]);
      const read = await call(p, "GET", "/api/saves/slots/one");
      assert.deepEqual(read.body.data, { collection: "slots", key: "one", value: { level: 2 }, version: v2, permissionRead: "owner", permissionWrite: "owner", updatedAt: updated.body.data.updatedAt });
      const missing = await call(p, "GET", "/api/saves/slots/two");
      assert.deepEqual([missing.status, missing.body.data.code], [404, "save_not_found"]);
      const overwrite = await call(p, "PUT", "/api/saves/slots/one", { value: { level: 7 }, overwrite: true });
      assert.equal(overwrite.status, 200);
      assert.ok(overwrite.body.data.version > v2);
    });

    it("100 concurrent writes of one object with the same version: one 200, 99 × 409, the winner's value kept", async () => {
      const p = await login();
      const v = (await call(p, "PUT", "/api/saves/slots/race", { value: { n: -1 } })).body.data.version;
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => call(p, "PUT", "/api/saves/slots/race", { value: { n: i }, version: v })));
      const winners = results.map((r, i) => (r.status === 200 ? i : -1)).filter((i) => i >= 0);
      assert.equal(winners.length, 1, JSON.stringify(results.filter((r) => r.status !== 409).map((r) => r.body)));
      assert.equal(results.filter((r) => r.status === 409 && r.body.data.code === "version_conflict").length, 99);
      const read = await call(p, "GET", "/api/saves/slots/race");
      assert.deepEqual(read.body.data.value, { n: winners[0] });
      assert.equal(read.body.data.version, results[winners[0]].body.data.version);
    });

    it("lists a collection by key with a cursor; another player sees public objects only (their private ones are 404)", async () => {
      const [p, other] = [await login(), await login()];
      for (const key of ["a", "b", "c", "d", "e"]) {
        const permissionRead = key === "b" || key === "d" ? "public" : "owner";
        assert.equal((await call(p, "PUT", `/api/saves/bag/${key}`, { value: { key }, permissionRead })).status, 201);
      }
      const keys: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await call(p, "GET", `/api/saves/bag?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        assert.equal(page.status, 200);
        keys.push(...page.body.data.objects.map((o: { key: string }) => o.key));
        cursor = page.body.data.cursor;
      } while (cursor);
      assert.deepEqual(keys, ["a", "b", "c", "d", "e"]);
      const theirs = await call(other, "GET", `/api/saves/bag?userId=${p.user.id}`);
      assert.deepEqual(theirs.body.data.objects.map((o: { key: string }) => o.key), ["b", "d"]);
      assert.equal((await call(other, "GET", `/api/saves/bag/b?userId=${p.user.id}`)).status, 200);
      const hidden = await call(other, "GET", `/api/saves/bag/a?userId=${p.user.id}`);
      assert.deepEqual([hidden.status, hidden.body.data.code], [404, "save_not_found"]);
      // Another player's objects are never written through the routes: a PUT is always the token's player's own.
      assert.equal((await call(other, "PUT", `/api/saves/bag/a?userId=${p.user.id}`, { value: { stolen: true } })).status, 201);
      assert.deepEqual((await call(p, "GET", "/api/saves/bag/a")).body.data.value, { key: "a" });
      const batch = await call(other, "POST", "/api/saves/batch", { reads: [{ collection: "bag", key: "a", userId: p.user.id }, { collection: "bag", key: "d", userId: p.user.id }] });
      assert.deepEqual(batch.body.data.objects.map((o: { key: string } | null) => o?.key ?? null), [null, "d"]);
    });

    it("server collections: a player's writes are 403 on every route; server code writes, the player reads", async () => {
      const p = await login();
      const put = await call(p, "PUT", "/api/saves/progress/level", { value: { level: 99 } });
      assert.deepEqual([put.status, put.body.data.code], [403, "save_write_forbidden"]);
      const batch = await call(p, "POST", "/api/saves/batch", { writes: [{ collection: "mine", key: "k", value: {} }, { collection: "progress", key: "level", value: {} }] });
      assert.equal(batch.status, 403);
      assert.deepEqual(await stored(p), []);
      const [written] = await h.services.saves.writeForPlayers(h.config.apps[0].key, [{ ownerId: p.user.id, collection: "progress", key: "level", value: { level: 3 } }]);
      const read = await call(p, "GET", "/api/saves/progress/level");
      assert.deepEqual([read.status, read.body.data.value, read.body.data.permissionWrite], [200, { level: 3 }, "server"]);
      const del = await call(p, "DELETE", `/api/saves/progress/level?version=${written.version}`);
      assert.deepEqual([del.status, del.body.data.code], [403, "save_write_forbidden"]);
    });

    it("deletes with the version read; without one 400, stale 409, absent 404; a later create goes on from it", async () => {
      const p = await login();
      const v = (await call(p, "PUT", "/api/saves/slots/del", { value: {} })).body.data.version;
      assert.equal((await call(p, "DELETE", "/api/saves/slots/del")).status, 400);
      const stale = await call(p, "DELETE", `/api/saves/slots/del?version=${v + 1}`);
      assert.deepEqual([stale.status, stale.body.data.version], [409, v]);
      const deleted = await call(p, "DELETE", `/api/saves/slots/del?version=${v}`);
      assert.equal(deleted.status, 200);
      assert.equal((await call(p, "GET", "/api/saves/slots/del")).status, 404);
      assert.equal((await call(p, "DELETE", `/api/saves/slots/del?version=${deleted.body.data.version}`)).status, 404);
      const recreated = await call(p, "PUT", "/api/saves/slots/del", { value: { back: true } });
      assert.equal(recreated.status, 201);
      assert.ok(recreated.body.data.version > deleted.body.data.version);
    });

    it("a batch of 10 writes with one stale version writes nothing; with every version right, all of it", async () => {
      const p = await login();
      const made = await call(p, "POST", "/api/saves/batch", { writes: Array.from({ length: 10 }, (_, i) => ({ collection: "state", key: `k${i}`, value: { v: 0 } })) });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      const versions: number[] = made.body.data.written.map((w: { version: number }) => w.version);
      const writes = versions.map((version, i) => ({ collection: "state", key: `k${i}`, value: { v: 1 }, version: i === 4 ? version + 1 : version }));
      const refused = await call(p, "POST", "/api/saves/batch", { writes });
      assert.deepEqual([refused.status, refused.body.data.code, refused.body.data.index, refused.body.data.version], [409, "version_conflict", 4, versions[4]]);
      assert.ok((await stored(p)).every((o) => o.value.v === 0));
      writes[4].version = versions[4];
      assert.equal((await call(p, "POST", "/api/saves/batch", { writes })).status, 200);
      assert.ok((await stored(p)).every((o) => o.value.v === 1));
      const twice = await call(p, "POST", "/api/saves/batch", { writes: [writes[0], writes[0]] });
      assert.deepEqual([twice.status, twice.body.data.code], [400, "save_batch_invalid"]);
      assert.equal((await call(p, "POST", "/api/saves/batch", { reads: [], writes: [] })).status, 400);
    });

    it("refuses hostile names and JSON with 400 and their codes, never a 5xx, and stores nothing", async () => {
      const p = await login();
      const names = ["%24where", "..", "a%2Fb", "a%00b", "%ED%A0%80", "%F0%9F%98%80", "a%20b", "x".repeat(300), "-x", "%C3%A7"];
      for (const name of names) {
        for (const url of [`/api/saves/${name}/k`, `/api/saves/c/${name}`]) {
          const res = await call(p, "PUT", url, { value: {} });
          assert.ok(res.status === 400 || res.status === 404, `${url}: ${res.status} ${JSON.stringify(res.body)}`);
          assert.ok((await call(p, "GET", url)).status < 500);
        }
      }
      const deep = `{"value":${"{\"a\":".repeat(20)}1${"}".repeat(20)}}`;
      const bodies: Array<[string, string]> = [
        [deep, "save_too_deep"],
        [`{"value":{"a":${"[".repeat(5000)}${"]".repeat(5000)}}}`, "save_too_deep"],
        ['{"value":{"n":1e400}}', "save_number_invalid"],
        ['{"value":{"n":123456789012345678901234567890}}', "save_number_invalid"],
        ['{"value":{"s":"\\ud800"}}', "save_text_invalid"],
        ['{"value":{"\\udfff":1}}', "save_text_invalid"],
        ['{"value":{"$set":{"a":1}}}', "save_key_reserved"],
        ['{"value":{"ok":{"$where":"1"}}}', "save_key_reserved"],
        ['{"value":{"__proto__":{"x":1}}}', "save_key_reserved"],
        ['{"value":[1,2]}', "save_value_not_object"],
        ['{"value":"text"}', "save_value_not_object"],
        ["{}", "save_value_not_object"],
        [JSON.stringify({ value: { big: "x".repeat(3000) } }), "save_too_large"],
        ['{"value":{},"version":1.5}', "invalid_request"],
        ['{"value":{},"extra":1}', "invalid_request"],
      ];
      for (const [body, code] of bodies) {
        const res = await call(p, "PUT", "/api/saves/c/k", body);
        assert.deepEqual([res.status, res.body.data?.code], [400, code], body.slice(0, 80));
        const inBatch = await call(p, "POST", "/api/saves/batch", `{"writes":[{"collection":"c","key":"k",${body.slice(1)}]}`);
        assert.ok(inBatch.status === 400, `batch ${body.slice(0, 60)}: ${inBatch.status}`);
      }
      const huge = await call(p, "PUT", "/api/saves/c/k", JSON.stringify({ value: { big: "x".repeat(40_000) } }));
      assert.equal(huge.status, 413);
      assert.deepEqual(await stored(p), []);
    });

    it("refuses a player's objects past SAVES_MAX_OBJECTS_PER_PLAYER (409 save_limit_reached), changes still allowed", async () => {
      const p = await login();
      const made = await call(p, "POST", "/api/saves/batch", { writes: Array.from({ length: 20 }, (_, i) => ({ collection: "many", key: `k${i}`, value: {} })) });
      assert.equal(made.status, 200);
      const over = await call(p, "PUT", "/api/saves/many/k20", { value: {} });
      assert.deepEqual([over.status, over.body.data.code, over.body.data.maxObjects], [409, "save_limit_reached", 20]);
      assert.equal((await call(p, "PUT", "/api/saves/many/k0", { value: { x: 1 }, version: made.body.data.written[0].version })).status, 200);
      assert.equal((await stored(p)).length, 20);
    });
  });
}
