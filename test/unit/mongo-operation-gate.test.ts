/**
 * The MongoDB store's time budget per request and its operation gate (call-budget.ts,
 * operation-gate.ts), with operations that stand in for the driver: which operations are sent with
 * what timeout, which wait, which are refused before being sent; and how the driver's client-side
 * timeout errors are classified (sent or not, 503 or not).
 */
import assert from "node:assert/strict";
import { MongoNetworkTimeoutError, MongoOperationTimeoutError, MongoServerSelectionError } from "mongodb";
import { currentBudget, shareStoreBudgets, StoreDeadlineError, withCallBudgets, type Budget } from "../../src/adapters/store/mongo/call-budget";
import { OperationGate } from "../../src/adapters/store/mongo/operation-gate";
import { isOutcomeUnknown } from "../../src/adapters/store/mongo/unknown-outcome";
import { isUnavailable } from "../../src/adapters/store/unavailable-errors";

const Q = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const left = (ms: number): Budget => ({ remaining: () => ms });
const lateReply = () => new MongoOperationTimeoutError("Timed out during socket read (200ms)");

describe("MongoDB operation gate", () => {
  it("sends each operation with what its call has left, and never with less than a quarter of the query timeout while the database answers", () => {
    const gate = new OperationGate({ slots: 1, queryTimeoutMs: Q, acquireTimeoutMs: 1000 });
    assert.equal(gate.timeoutFor(left(5000), "op"), Q);
    assert.equal(gate.timeoutFor(left(120), "op"), 120);
    assert.equal(gate.timeoutFor(left(-300), "op"), Q / 4);
  });

  it("lets a burst wait for a connection past its budget while the database answers, and sends it with the least timeout", async () => {
    const gate = new OperationGate({ slots: 1, queryTimeoutMs: Q, acquireTimeoutMs: 1000 });
    const sent: number[] = [];
    const holder = gate.run(left(Q), "first", async (t) => (sent.push(t), sleep(Q / 2)));
    const waiter = gate.run({ remaining: () => -1 }, "second", async (t) => sent.push(t));
    await Promise.all([holder, waiter]);
    assert.deepEqual(sent, [Q, Q / 4]);
  });

  it("once operations go unanswered, refuses before sending every operation whose call has spent its budget, waiting or new", async () => {
    const gate = new OperationGate({ slots: 1, queryTimeoutMs: Q, acquireTimeoutMs: 5000 });
    const sent: string[] = [];
    for (const n of [1, 2]) {
      await assert.rejects(gate.run(left(Q), `late ${n}`, async () => Promise.reject(lateReply())), MongoOperationTimeoutError);
    }
    assert.ok(gate.failing());
    let held = true;
    const holder = gate.run(left(Q), "holder", async () => sleep(Q / 2).then(() => (held = false)));
    const waiting = gate.run({ remaining: () => 0 }, "waiting", async () => void sent.push("waiting"));
    await assert.rejects(waiting, StoreDeadlineError);
    assert.ok(held, "refused while the holder still held the connection");
    await assert.rejects(gate.run(left(10), "new", async () => void sent.push("new")), StoreDeadlineError);
    await holder;
    await gate.run(left(Q), "with time left", async () => void sent.push("with time left"));
    assert.deepEqual(sent, ["with time left"]);
  });

  it("does not count a reply missed within the least timeout (a call that waited long in a burst) as the database failing", async () => {
    const gate = new OperationGate({ slots: 2, queryTimeoutMs: Q, acquireTimeoutMs: 1000 });
    for (const n of [1, 2, 3]) await assert.rejects(gate.run(left(0), `short ${n}`, async () => Promise.reject(lateReply())));
    assert.equal(gate.failing(), false);
    for (const n of [1, 2]) await assert.rejects(gate.run(left(Q), `lost ${n}`, async () => Promise.reject(new MongoNetworkTimeoutError("x"))));
    assert.equal(gate.failing(), true);
  });
});

describe("MongoDB store budget per request", () => {
  it("gives a request's later calls of a store what its earlier ones left, not counting the time between them", async () => {
    const store = withCallBudgets(
      {
        async work(ms: number) {
          await sleep(ms);
          return currentBudget()!.remaining(performance.now());
        },
      },
      1000,
    );
    const alone = await store.work(0);
    assert.ok(alone > 950, `a call outside any request has its own budget: ${alone}`);
    await shareStoreBudgets(
      () => true,
      async () => {
        await store.work(300);
        await sleep(300); // a platform's answer: not the store's time
        const leftAfter = await store.work(0);
        // 1000 less the 300 ms inside; the 300 ms between the calls would have left at most 400.
        assert.ok(leftAfter > 450 && leftAfter < 720, `left after 300 ms inside the store: ${leftAfter}`);
      },
    );
    assert.equal(currentBudget(), undefined, "no budget outside a call");
  });
});

describe("MongoDB client-side timeout errors", () => {
  const withCause = (message: string, causeName: string) => new MongoOperationTimeoutError(message, { cause: Object.assign(new Error("x"), { name: causeName }) });

  it("tell an operation never sent from one whose outcome is unknown", () => {
    assert.equal(isOutcomeUnknown(withCause("Timed out during connection checkout", "MongoWaitQueueTimeoutError")), false);
    assert.equal(isOutcomeUnknown(new MongoOperationTimeoutError("Timed out during server selection", { cause: new MongoServerSelectionError("x", {} as never) })), false);
    assert.equal(isOutcomeUnknown(new MongoOperationTimeoutError("Timed out before socket write")), false);
    assert.equal(isOutcomeUnknown(new StoreDeadlineError("insertOne on users")), false);
    assert.equal(isOutcomeUnknown(lateReply()), true);
    assert.equal(isOutcomeUnknown(new MongoOperationTimeoutError("Timed out at socket write")), true);
    assert.equal(isOutcomeUnknown(new MongoOperationTimeoutError("Server roundtrip time is greater than the time remaining")), true);
  });

  it("are a retryable 503", () => {
    assert.ok(isUnavailable(lateReply()));
    assert.ok(isUnavailable(withCause("Timed out during connection checkout", "MongoWaitQueueTimeoutError")));
    assert.ok(isUnavailable(new StoreDeadlineError("insertOne on users")));
  });
});
