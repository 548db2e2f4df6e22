/**
 * One contract for the SaveStore port over SQLite, PostgreSQL and MongoDB (FerretDB): every change
 * is compare-and-set on the object's version however many writers race (one winner, the others
 * told the version now), a batch applies all or nothing, and a delete leaves the version growing.
 */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { createSaveStore } from "../../src/adapters/store/create-save-store";
import type { ExpectedVersion, SaveChange, SaveRef, SaveStore } from "../../src/core/ports/save-store";
import { storeImplementations } from "../support/store-configs";

const at = () => new Date().toISOString();
const player = () => `u-${crypto.randomBytes(4).toString("hex")}`;
const ref = (ownerId: string, key: string, collection = "progress", app = "default"): SaveRef => ({ app, collection, key, ownerId });
const put = (r: SaveRef, value: Record<string, unknown>, expected: ExpectedVersion, permissionRead: "owner" | "public" = "owner"): SaveChange => ({
  kind: "put",
  ...r,
  value,
  expected,
  permissionRead,
  permissionWrite: "owner",
  at: at(),
});
const del = (r: SaveRef, expected: number | "any"): SaveChange => ({ kind: "delete", ...r, expected, at: at() });

for (const impl of storeImplementations("saves")) {
  describe(`SaveStore contract: ${impl.name}`, function () {
    this.timeout(120_000);
    let store: SaveStore;
    let release: () => Promise<void>;

    before(async () => {
      const prepared = await impl.prepare();
      release = prepared.release;
      store = await createSaveStore(prepared.config);
    });
    after(async () => {
      await store?.close();
      await release?.();
    });

    it("migrates again without harm", async () => {
      await store.migrate();
    });

    it("creates once, then changes only from the version it read", async () => {
      const r = ref(player(), "slot1");
      const created = await store.write([put(r, { level: 1 }, "absent")]);
      assert.ok(created.ok);
      assert.equal(created.written[0].created, true);
      const v1 = created.written[0].version;
      assert.deepEqual(await store.write([put(r, { level: 9 }, "absent")]), { ok: false, index: 0, current: v1 });
      const updated = await store.write([put(r, { level: 2 }, v1)]);
      assert.ok(updated.ok && updated.written[0].version > v1 && !updated.written[0].created);
      const v2 = updated.ok ? updated.written[0].version : 0;
      assert.deepEqual(await store.write([put(r, { level: 3 }, v1)]), { ok: false, index: 0, current: v2 });
      const read = await store.read(r);
      assert.deepEqual(read?.value, { level: 2 });
      assert.equal(read?.version, v2);
      assert.deepEqual(await store.write([put(ref(player(), "none"), { a: 1 }, 1)]), { ok: false, index: 0, current: null });
    });

    it("lets exactly one of 100 concurrent writers of one version win, and keeps the winner's value", async () => {
      const r = ref(player(), "contended");
      const first = await store.write([put(r, { n: -1 }, "absent")]);
      assert.ok(first.ok);
      const v = first.written[0].version;
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => store.write([put(r, { n: i }, v)])));
      const winners = results.map((res, i) => (res.ok ? i : -1)).filter((i) => i >= 0);
      assert.equal(winners.length, 1, `winners: ${winners}`);
      const winner = results[winners[0]];
      assert.ok(winner.ok);
      for (const res of results) if (!res.ok) assert.equal(res.current, winner.written[0].version);
      const stored = await store.read(r);
      assert.deepEqual(stored?.value, { n: winners[0] });
      assert.equal(stored?.version, winner.written[0].version);
    });

    it("creates an object once among 50 concurrent creators", async () => {
      const r = ref(player(), "fresh");
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.write([put(r, { n: i }, "absent")])));
      const winners = results.map((res, i) => (res.ok ? i : -1)).filter((i) => i >= 0);
      assert.equal(winners.length, 1);
      assert.deepEqual((await store.read(r))?.value, { n: winners[0] });
    });

    it("applies every one of 20 concurrent last-writer-wins puts, each on its own version", async () => {
      const r = ref(player(), "lww");
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.write([put(r, { n: i }, "any")])));
      assert.ok(results.every((res) => res.ok));
      const versions = results.map((res) => (res.ok ? res.written[0].version : 0));
      assert.equal(new Set(versions).size, 20);
      assert.equal(results.filter((res) => res.ok && res.written[0].created).length, 1);
      const last = versions.indexOf(Math.max(...versions));
      assert.deepEqual((await store.read(r))?.value, { n: last });
    });

    it("deletes from the version read; the version keeps growing past the tombstone", async () => {
      const r = ref(player(), "gone");
      const created = await store.write([put(r, { a: 1 }, "absent")]);
      assert.ok(created.ok);
      const v1 = created.written[0].version;
      assert.deepEqual(await store.write([del(r, v1 + 5)]), { ok: false, index: 0, current: v1 });
      const deleted = await store.write([del(r, v1)]);
      assert.ok(deleted.ok);
      const tomb = deleted.written[0].version;
      assert.ok(tomb > v1);
      assert.equal(await store.read(r), null);
      assert.deepEqual(await store.write([put(r, { a: 2 }, v1)]), { ok: false, index: 0, current: null });
      assert.deepEqual(await store.write([del(r, "any")]), { ok: false, index: 0, current: null });
      const again = await store.write([put(r, { a: 3 }, "absent")]);
      assert.ok(again.ok && again.written[0].created && again.written[0].version > tomb);
      assert.deepEqual((await store.read(r))?.value, { a: 3 });
    });

    it("writes nothing of a batch of 10 with one stale version", async () => {
      const owner = player();
      const refs = Array.from({ length: 10 }, (_, i) => ref(owner, `k${i}`));
      const made = await store.write(refs.map((r) => put(r, { v: "old" }, "absent")));
      assert.ok(made.ok);
      const versions = made.written.map((w) => w.version);
      const changes = refs.map((r, i) => put(r, { v: "new" }, i === 6 ? versions[i] + 1 : versions[i]));
      assert.deepEqual(await store.write(changes), { ok: false, index: 6, current: versions[6] });
      for (const r of refs) assert.deepEqual((await store.read(r))?.value, { v: "old" });
      // The same batch with every version right applies whole; a retry of it is then stale.
      const fixed = changes.map((c, i) => ({ ...c, expected: versions[i] }));
      const applied = await store.write(fixed);
      assert.ok(applied.ok);
      for (const r of refs) assert.deepEqual((await store.read(r))?.value, { v: "new" });
      assert.equal((await store.write(fixed)).ok, false);
    });

    it("lets one of two concurrent batches over the same objects win, whole", async () => {
      const owner = player();
      const refs = [ref(owner, "a"), ref(owner, "b"), ref(owner, "c")];
      const made = await store.write(refs.map((r) => put(r, { by: "none" }, "absent")));
      assert.ok(made.ok);
      const batch = (name: string, order: number[]) => order.map((i) => put(refs[i], { by: name }, made.written[i].version));
      const results = await Promise.all([store.write(batch("x", [0, 1, 2])), store.write(batch("y", [2, 1, 0])), store.write(batch("z", [1, 0, 2]))]);
      assert.equal(results.filter((res) => res.ok).length, 1);
      const values = await Promise.all(refs.map(async (r) => (await store.read(r))?.value.by));
      assert.equal(new Set(values).size, 1, `one batch's values everywhere: ${values}`);
      assert.notEqual(values[0], "none");
    });

    it("lists an owner's collection by key with a cursor, public ones alone when asked, and counts live objects", async () => {
      const owner = player();
      const keys = Array.from({ length: 7 }, (_, i) => `item${i}`);
      for (const [i, key] of keys.entries()) assert.ok((await store.write([put(ref(owner, key, "bag"), { i }, "absent", i % 2 ? "public" : "owner")])).ok);
      assert.ok((await store.write([put(ref(owner, "elsewhere", "other"), {}, "absent")])).ok);
      const removed = await store.read(ref(owner, "item3", "bag"));
      assert.ok((await store.write([del(ref(owner, "item3", "bag"), removed!.version)])).ok);
      const seen: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await store.list("default", owner, "bag", { limit: 2, after });
        seen.push(...page.objects.map((o) => o.key));
        if (!page.next) break;
        after = page.next;
      }
      assert.deepEqual(seen, ["item0", "item1", "item2", "item4", "item5", "item6"]);
      const pub = await store.list("default", owner, "bag", { limit: 50, publicOnly: true });
      assert.deepEqual(pub.objects.map((o) => o.key), ["item1", "item5"]);
      assert.equal(pub.objects[0].permissionRead, "public");
      assert.equal(await store.count("default", owner), 7);
      assert.equal(await store.count("another-app", owner), 0);
    });

    it("keeps apps apart, lists every live object of an owner, and erases them all", async () => {
      const owner = player();
      const other = player();
      assert.ok((await store.write([put(ref(owner, "s", "c", "app1"), { app: 1 }, "absent"), put(ref(owner, "s", "c", "app2"), { app: 2 }, "absent")])).ok);
      assert.ok((await store.write([put(ref(other, "s", "c", "app1"), { mine: true }, "absent")])).ok);
      assert.deepEqual((await store.read(ref(owner, "s", "c", "app2")))?.value, { app: 2 });
      const all = await store.listByOwner(owner);
      assert.deepEqual(all.map((o) => [o.app, o.collection, o.key, o.value]), [["app1", "c", "s", { app: 1 }], ["app2", "c", "s", { app: 2 }]]);
      await store.erase(owner);
      assert.deepEqual(await store.listByOwner(owner), []);
      assert.equal(await store.read(ref(owner, "s", "c", "app1")), null);
      assert.deepEqual((await store.read(ref(other, "s", "c", "app1")))?.value, { mine: true });
      // Erased means gone, history included: the object can be made again from nothing.
      assert.ok((await store.write([put(ref(owner, "s", "c", "app1"), {}, "absent")])).ok);
    });

    it("keeps the value's text as written (unicode, nesting, numbers)", async () => {
      const r = ref(player(), "text");
      const value = { name: "玩家😀", nested: { list: [1, 2.5, -3e10, true, null, "a.b"] }, "key.with.dots": 1, empty: {} };
      assert.ok((await store.write([put(r, value, "absent")])).ok);
      assert.deepEqual((await store.read(r))?.value, value);
    });
  });
}
