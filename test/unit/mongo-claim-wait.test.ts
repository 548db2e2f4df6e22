/**
 * takeClaim (src/adapters/store/mongo/claims.ts) on a slow database: a claim held by a creation
 * still in flight is answered with a retryable 503 (ClaimInFlightError) within the wait it is
 * given, not a round of reads after it.
 */
import assert from "node:assert/strict";
import type { mongo } from "mongoose";
import { ClaimInFlightError, takeClaim } from "../../src/adapters/store/mongo/claims";
import type { IdentityClaim } from "../../src/adapters/store/mongo/mongo-models";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A claim collection whose every operation answers after `opMs`, holding one claim of another creation. */
function slowCollection(opMs: number, holder: IdentityClaim): mongo.Collection<IdentityClaim> {
  return {
    collectionName: "user_identities",
    insertOne: async () => {
      await sleep(opMs);
      throw Object.assign(new Error("E11000 duplicate key"), { code: 11000 });
    },
    findOne: async () => {
      await sleep(opMs);
      return holder;
    },
  } as unknown as mongo.Collection<IdentityClaim>;
}

describe("takeClaim while another creation holds the claim", () => {
  for (const opMs of [1, 60]) {
    it(`answers ClaimInFlightError within its wait when each read takes ${opMs} ms`, async () => {
      // Made now: a claim older than the orphan age (30 s) would be taken over instead.
      const holder = { _id: "wechat:o1", userId: "other", platform: "wechat", platformId: "o1", createdAt: new Date(), at: new Date() } as unknown as IdentityClaim;
      const mine = { ...holder, userId: "me", at: new Date() } as IdentityClaim;
      const waitMs = 400;
      const readUser = async () => {
        await sleep(opMs);
        return null; // the holder's user is not written yet
      };
      const started = Date.now();
      await assert.rejects(
        takeClaim(slowCollection(opMs, holder), mine, { readUser, finishErase: async () => undefined, byIdOnly: true, inFlightWaitMs: waitMs }),
        ClaimInFlightError,
      );
      const took = Date.now() - started;
      // A round is three reads; before, one that began just before the wait ended ran to its end.
      assert.ok(took <= waitMs + 50, `answered after ${took} ms, the wait being ${waitMs} ms`);
      assert.ok(took >= waitMs - 3 * opMs - 60, `gave up after ${took} ms, well before the wait of ${waitMs} ms`);
    });
  }
});
