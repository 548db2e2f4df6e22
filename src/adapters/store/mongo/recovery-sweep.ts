/**
 * The MongoDB user store's recovery sweep: what a crash, a killed server or a lost answer can
 * leave behind, and that no request may ever come back for, is resolved here, in every process
 * (each step is idempotent, so processes sweeping at once do no harm):
 *
 * - a user marked as being deleted: its erase is finished (user-erase.ts);
 * - an identity, username or email claim older than ORPHAN_AFTER_MS whose user does not exist
 *   (a creation that stopped before writing it), or, for a username or email, whose user holds
 *   another name (a creation whose user was written under another): removed, while still unchanged;
 * - identity links and version claims whose user is gone (an erase stopped before its last step).
 *
 * It reads each collection whole: FerretDB answers that by a scan, so it runs every few minutes,
 * not per request. Claims younger than ORPHAN_AFTER_MS are left to the creation that made them.
 */
import { ORPHAN_AFTER_MS, releaseClaim, type ClaimOwners } from "./claims";
import type { IdentityClaim, KeyClaim, MongoModels, UserDoc } from "./mongo-models";
import { readNewest } from "./user-versions";

export interface SweepReport {
  erasesFinished: number;
  claimsReleased: number;
  leftoversRemoved: number;
}

type Head = Pick<UserDoc, "_id" | "usernameNorm" | "emailNorm" | "deletingAt">;

export class RecoverySweep {
  private timer?: NodeJS.Timeout;
  private running?: Promise<SweepReport>;

  constructor(
    private readonly models: MongoModels,
    private readonly owners: ClaimOwners,
  ) {}

  /** Runs every `intervalMs` (the first at a random point of the first interval, so processes spread out). */
  start(intervalMs: number): void {
    if (intervalMs <= 0 || this.timer) return;
    const next = (delay: number) => {
      this.timer = setTimeout(() => {
        // A sweep that meets an outage simply fails; the next one starts over.
        this.run().then(
          () => next(intervalMs),
          () => next(intervalMs),
        );
      }, delay);
      this.timer.unref();
    };
    next(Math.round(intervalMs * (0.1 + 0.9 * Math.random())));
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One sweep; a call while one runs joins it. */
  run(): Promise<SweepReport> {
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweep(): Promise<SweepReport> {
    const { users, versions, identities, usernames, emails, links } = this.models.collections;
    const report: SweepReport = { erasesFinished: 0, claimsReleased: 0, leftoversRemoved: 0 };
    const orphanAfterMs = this.owners.orphanAfterMs ?? ORPHAN_AFTER_MS;
    const oldEnough = (at: Date | undefined) => !at || Date.now() - at.getTime() >= orphanAfterMs;
    const heads = new Map<string, Head>();
    for await (const head of users.find({}, { projection: { usernameNorm: 1, emailNorm: 1, deletingAt: 1 } })) heads.set(head._id, head as Head);
    // A user exists unless neither the scan nor a read now finds it (it may have been written since).
    const exists = async (userId: string) => heads.has(userId) || (await users.findOne({ _id: userId })) !== null;

    const marked = new Set([...heads.values()].filter((h) => h.deletingAt !== null).map((h) => h._id));
    for await (const version of versions.find({})) {
      if (!heads.has(version.userId)) {
        if (oldEnough(version.at) && !(await exists(version.userId))) {
          await versions.deleteOne({ _id: version._id });
          report.leftoversRemoved++;
        }
      } else if (version.user.deletingAt) marked.add(version.userId);
    }
    for (const userId of marked) {
      const user = await readNewest(this.models, userId);
      if (!user || user.deletingAt === null) continue;
      await this.owners.finishErase(user);
      report.erasesFinished++;
    }

    const stale = (claim: IdentityClaim | KeyClaim, kind: "identity" | "username" | "email") => {
      const head = heads.get(claim.userId);
      if (!head) return true;
      return (kind === "username" && head.usernameNorm !== claim._id) || (kind === "email" && head.emailNorm !== claim._id);
    };
    const collections = [
      [identities, "identity"],
      [usernames, "username"],
      [emails, "email"],
    ] as const;
    for (const [collection, kind] of collections) {
      for await (const claim of (collection as typeof usernames).find({})) {
        if (marked.has(claim.userId) || !oldEnough(claim.at) || !stale(claim, kind)) continue;
        if (!heads.has(claim.userId) && (await exists(claim.userId))) continue;
        await releaseClaim(collection as typeof usernames, claim._id, claim.userId, this.owners.byIdOnly);
        report.claimsReleased++;
      }
    }
    for await (const link of links.find({})) {
      if (!oldEnough(link.at) || heads.has(link.userId) || (await exists(link.userId))) continue;
      await links.deleteOne({ _id: link._id });
      report.leftoversRemoved++;
    }
    return report;
  }
}
