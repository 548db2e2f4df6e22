/**
 * What analytics events carry of LiveOps (EventStamps): the variants the player holds (never one the
 * evaluation would pick: counting is not exposure) and the live events active at each event's own
 * instant; one read of a player not held by LiveOps, one evaluation reused until its next boundary,
 * and a new evaluation as soon as LiveOps holds newer inputs (an assignment made since).
 */
import assert from "node:assert/strict";
import { emptyDefinitions, type LiveOpsDefinitions } from "../../src/core/liveops";
import { EventStamps, type StampInputs } from "../../src/services/liveops/event-stamps";

const HOUR = 3600_000;
const T0 = Date.parse("2026-06-01T00:00:00.000Z");

function definitions(): LiveOpsDefinitions {
  const defs = emptyDefinitions();
  defs.events.push({ eventId: "sale", name: "Sale", startsAt: new Date(T0 + 2 * HOUR).toISOString(), endsAt: new Date(T0 + 4 * HOUR).toISOString(), prices: {}, flags: {} } as never);
  defs.experiments.push({ experimentId: "exp", variants: [{ variant: "a", weight: 1, flags: {} }, { variant: "b", weight: 1, flags: {} }] } as never);
  return defs;
}

describe("LiveOps stamps of analytics events", () => {
  const facts = { userId: "u1", app: "default", platform: "wechat", properties: {} } as unknown as StampInputs["facts"];

  it("names held variants only and the events active at the event's instant; one read, evaluations reused within a window", async () => {
    let reads = 0;
    let held: StampInputs | undefined;
    const defs = definitions();
    const stamps = new EventStamps(
      () => ({ version: 1, definitions: defs }),
      () => held,
      async () => {
        reads++;
        return { facts, stored: {} };
      },
      () => T0,
    );
    assert.deepEqual(await stamps.stampOf("default", "u1", T0 + HOUR), { experiments: {}, liveEvents: [] }, "not assigned: no variant, though one would be picked");
    assert.deepEqual(await stamps.stampOf("default", "u1", T0 + 90 * 60_000), { experiments: {}, liveEvents: [] });
    assert.deepEqual(await stamps.stampOf("default", "u1", T0 + 3 * HOUR), { experiments: {}, liveEvents: ["sale"] }, "past the sale's start: evaluated again");
    assert.deepEqual(await stamps.stampOf("default", "u1", T0 + 5 * HOUR), { experiments: {}, liveEvents: [] });
    assert.equal(reads, 1);
    held = { facts, stored: { exp: "b" } };
    assert.deepEqual(await stamps.stampOf("default", "u1", T0 + 5 * HOUR), { experiments: { exp: "b" }, liveEvents: [] }, "LiveOps' newer inputs win at once");
    assert.equal(reads, 1);
  });

  it("a failed read is not kept: the next event reads again", async () => {
    let reads = 0;
    const stamps = new EventStamps(
      () => ({ version: 1, definitions: definitions() }),
      () => undefined,
      async () => {
        if (reads++ === 0) throw new Error("store out");
        return { facts, stored: { exp: "a" } };
      },
      () => T0,
    );
    await assert.rejects(stamps.stampOf("default", "u1", T0));
    assert.deepEqual(await stamps.stampOf("default", "u1", T0), { experiments: { exp: "a" }, liveEvents: [] });
  });
});
