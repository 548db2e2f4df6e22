/**
 * The import's creates-if-absent gathered into batches: rows in flight together are one write, a row
 * already there is answered false without holding back the others, a refused row is refused alone,
 * and a store that fails fails every row of its batch (each retried by the import, never undone).
 * The saves themselves are a small in-memory model of SaveService.writeForPlayers: all-or-none,
 * `version_conflict` naming the first row found present, `save_value_invalid`-style refusals.
 */
import assert from "node:assert/strict";
import { AppError } from "../../src/core/errors";
import { SaveCreateBatcher, type SaveCreate } from "../../src/services/migration/save-create-batcher";

class FakeSaves {
  readonly stored = new Map<string, unknown>();
  readonly calls: number[] = [];
  failNext?: Error;

  async writeForPlayers(_app: string, inputs: Array<SaveCreate & { version?: number }>) {
    this.calls.push(inputs.length);
    await new Promise((resolve) => setImmediate(resolve));
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = undefined;
      throw err;
    }
    inputs.forEach((input) => {
      if ("$bad" in input.value) throw new AppError("save_key_reserved");
    });
    const index = inputs.findIndex((input) => this.stored.has(input.key));
    if (index >= 0) throw new AppError("version_conflict", { data: { key: inputs[index].key, version: 1, ...(inputs.length > 1 ? { index } : {}) } });
    for (const input of inputs) this.stored.set(input.key, input.value);
    return inputs.map((input) => ({ collection: input.collection, key: input.key, version: 1, updatedAt: "", created: true }));
  }
}

const row = (key: string, value: Record<string, unknown> = { level: 1 }): SaveCreate => ({ ownerId: `owner-${key}`, collection: "progress", key, value, permissionRead: "owner" });

describe("SaveCreateBatcher", () => {
  it("writes the rows started in one turn as one batch, at most maxBatch rows each", async () => {
    const saves = new FakeSaves();
    const batcher = new SaveCreateBatcher(saves, "default", 50);
    const created = await Promise.all(Array.from({ length: 120 }, (_, i) => batcher.create(row(`k${i}`))));
    assert.equal(created.filter(Boolean).length, 120);
    assert.deepEqual(saves.calls, [50, 50, 20]);
    assert.equal(saves.stored.size, 120);
  });

  it("answers false for rows already there and still creates the rest of their batch", async () => {
    const saves = new FakeSaves();
    saves.stored.set("k3", { level: 99 });
    saves.stored.set("k7", { level: 99 });
    const batcher = new SaveCreateBatcher(saves, "default", 50);
    const created = await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.create(row(`k${i}`))));
    assert.deepEqual(created, [true, true, true, false, true, true, true, false, true, true]);
    assert.deepEqual(saves.stored.get("k3"), { level: 99 }, "an existing object is never overwritten");
    assert.equal(saves.stored.size, 10);
  });

  it("refuses a row the saves refuse, alone: the others of its batch are created", async () => {
    const saves = new FakeSaves();
    const batcher = new SaveCreateBatcher(saves, "default", 50);
    const results = await Promise.allSettled([batcher.create(row("a")), batcher.create(row("b", { $bad: 1 })), batcher.create(row("c"))]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
    assert.equal(((results[1] as PromiseRejectedResult).reason as AppError).code, "save_key_reserved");
    assert.deepEqual([...saves.stored.keys()].sort(), ["a", "c"]);
  });

  it("fails every row of a batch the store did not answer, and a retry counts what landed as already there", async () => {
    const saves = new FakeSaves();
    saves.failNext = new AppError("service_unavailable");
    const batcher = new SaveCreateBatcher(saves, "default", 50);
    const results = await Promise.allSettled([batcher.create(row("a")), batcher.create(row("b"))]);
    assert.deepEqual(results.map((r) => r.status), ["rejected", "rejected"]);
    // The lost answer's write did land (as a timeout's may): the retry finds it and creates nothing twice.
    saves.stored.set("a", { level: 1 });
    assert.deepEqual(await Promise.all([batcher.create(row("a")), batcher.create(row("b"))]), [false, true]);
    assert.equal(saves.stored.size, 2);
  });
});
