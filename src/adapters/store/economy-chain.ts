/**
 * How both economy stores (SQL and MongoDB) decide a change exactly once without transactions or
 * conditional updates, which FerretDB 1.x does not make atomic (ferretdb notes: only an insert into
 * a unique key is race-free there). Two kinds of insert-only records do it:
 *
 *   source claim  key "<app>:<source>:<sourceId>": who made the change, what it is, and `fromSeq`,
 *                 a lower bound of the player's ledger length read before the claim was inserted.
 *                 The one inserter is the change's first caller; everyone else is a replay.
 *   entry         key (app, user, seq): the player's ledger is a chain 1, 2, 3…; an entry carries
 *                 the state after it, so the latest entry IS the wallet and inventory. Entry n+1 is
 *                 inserted by whoever read entry n as the latest; the unique key lets one win, and
 *                 the others read again. Balances are checked against entry n: never negative.
 *
 * Settling a claim (by its inserter, or by a replay after a crash between the two inserts) reads
 * the latest entry n, looks for the claim's key among entries fromSeq+1..n (entries are immutable,
 * so what was read stays true), and only then inserts n+1: if another settler got there first, the
 * insert fails and the next round finds its entry. So each key lands in the chain exactly once,
 * applied or refused, and the claim's stored change (not a replay's body) is what lands.
 */
import { AppError } from "../../core/errors";
import { emptyState, type ApplyResult, type EconomyChange, type EconomyState, type LedgerEntry, type RefusalReason } from "../../core/ports/economy-store";
import { fenced, type EraseFence } from "./erase-fence";
import { ECONOMY_CRASH_POINTS, type EconomyCrashPoint } from "../../core/ports/economy-store";

/** Declared below config and the stores (core/ports/economy-store.ts); named here as before. */
export { ECONOMY_CRASH_POINTS, type EconomyCrashPoint };

export interface SourceClaim {
  key: string;
  appId: string;
  userId: string;
  source: string;
  sourceId: string;
  fromSeq: number;
  change: EconomyChange;
  /** The entry's seq once known (a hint written after the entry; never authoritative). */
  seq: number | null;
  at: string;
}

/** What a backend provides: point reads, and inserts that a unique key decides (false: key taken). */
export interface ChainRecords {
  readClaim(key: string): Promise<SourceClaim | null>;
  insertClaim(claim: SourceClaim): Promise<boolean>;
  /** Best effort: remembers where the claim's entry is. */
  markClaim(key: string, seq: number): Promise<void>;
  /** A lower bound of the player's ledger length (0 when unknown). */
  headHint(appId: string, userId: string): Promise<number>;
  /** Best effort: raises the hint. */
  raiseHead(appId: string, userId: string, seq: number): Promise<void>;
  readEntry(appId: string, userId: string, seq: number): Promise<LedgerEntry | null>;
  insertEntry(entry: LedgerEntry, sourceKey: string): Promise<boolean>;
}

export const sourceKey = (appId: string, source: string, sourceId: string) => [appId, source, sourceId].map(encodeURIComponent).join(":");
export const playerKey = (appId: string, userId: string) => [appId, userId].map(encodeURIComponent).join(":");

/** Called at each step with the change's source; a fault test's hook kills the process there. */
export type EconomyCrashHook = (step: EconomyCrashPoint, source: string) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MAX_ROUNDS = 200;

/** The outcome of a change against the state before it; the state after (unchanged when refused). */
export function decide(before: EconomyState, change: EconomyChange): { state: EconomyState; reason: RefusalReason | null } {
  for (const itemId of change.ownedOnce ?? []) {
    if ((before.items[itemId] ?? 0) > 0) return { state: before, reason: "already_owned" };
  }
  if (change.cap && (before.counters?.[change.cap.key] ?? 0) >= change.cap.limit) return { state: before, reason: "cap_reached" };
  const purchase = change.purchase;
  if (purchase?.limit !== undefined && (before.purchased[purchase.itemId] ?? 0) + purchase.quantity > purchase.limit) {
    return { state: before, reason: "purchase_limit" };
  }
  const balances = { ...before.balances };
  for (const [currency, delta] of Object.entries(change.currencies ?? {})) {
    const next = (balances[currency] ?? 0) + delta;
    if (next < 0) return { state: before, reason: "insufficient_funds" };
    balances[currency] = next;
  }
  const items = { ...before.items };
  for (const { itemId, count } of change.items ?? []) {
    const next = (items[itemId] ?? 0) + count;
    if (next < 0) return { state: before, reason: "insufficient_funds" };
    if (next === 0) delete items[itemId];
    else items[itemId] = next;
  }
  const purchased = { ...before.purchased };
  if (purchase) purchased[purchase.itemId] = (purchased[purchase.itemId] ?? 0) + purchase.quantity;
  const state: EconomyState = { balances, items, purchased };
  if (before.counters || change.cap) state.counters = { ...before.counters };
  if (change.cap) state.counters![change.cap.key] = (before.counters?.[change.cap.key] ?? 0) + 1;
  return { state, reason: null };
}

/** One process's changes to one player run one after another: no contention inside a process. */
export class PlayerQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const tail = this.tails.get(key) ?? Promise.resolve();
    const result = tail.then(task, task);
    const settled = result.catch(() => undefined);
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return result;
  }
}

export class EconomyChain {
  private readonly queue = new PlayerQueue();

  constructor(
    private readonly records: ChainRecords,
    private readonly crashPoint?: EconomyCrashHook,
    /** Checked after every change: a change of a user being erased is removed and refused (erase-fence.ts). */
    private readonly fence?: EraseFence,
  ) {}

  apply(change: EconomyChange): Promise<ApplyResult> {
    return this.queue.run(playerKey(change.appId, change.userId), () => this.fenced(change.userId, () => this.claimAndSettle(change)));
  }

  private async claimAndSettle(change: EconomyChange): Promise<ApplyResult> {
    const key = sourceKey(change.appId, change.source, change.sourceId);
    let claim = await this.records.readClaim(key);
    let first = false;
    if (!claim) {
      const fromSeq = await this.records.headHint(change.appId, change.userId);
      const ours: SourceClaim = { key, appId: change.appId, userId: change.userId, source: change.source, sourceId: change.sourceId, fromSeq, change, seq: null, at: change.at };
      first = await this.records.insertClaim(ours);
      claim = first ? ours : await this.records.readClaim(key);
      if (first) this.crashPoint?.("after_claim", change.source);
      if (!claim) throw new Error(`source claim ${key} vanished`);
    }
    if (claim.userId !== change.userId) throw new AppError("source_conflict", { data: { source: change.source, sourceId: change.sourceId } });
    return { entry: await this.settle(claim), first };
  }

  async findBySource(appId: string, source: string, sourceId: string): Promise<LedgerEntry | null> {
    const claim = await this.records.readClaim(sourceKey(appId, source, sourceId));
    if (!claim) return null;
    // Settling may append the entry a crash left owed: fenced like a change.
    return this.queue.run(playerKey(claim.appId, claim.userId), () => this.fenced(claim.userId, () => this.settle(claim)));
  }

  private fenced<T>(userId: string, write: () => Promise<T>): Promise<T> {
    return this.fence ? fenced(this.fence, userId, write) : write();
  }

  /** The latest entry (null: empty ledger), probing forward from the hint by point reads. */
  async latest(appId: string, userId: string): Promise<LedgerEntry | null> {
    let seq = await this.records.headHint(appId, userId);
    let entry = seq > 0 ? await this.records.readEntry(appId, userId, seq) : null;
    if (seq > 0 && !entry) {
      // Hints only rise after an entry exists; a missing one means the ledger was erased.
      seq = 0;
    }
    for (;;) {
      const next = await this.records.readEntry(appId, userId, seq + 1);
      if (!next) return entry;
      entry = next;
      seq += 1;
    }
  }

  async state(appId: string, userId: string): Promise<EconomyState> {
    return (await this.latest(appId, userId))?.state ?? emptyState();
  }

  private async settle(claim: SourceClaim): Promise<LedgerEntry> {
    if (claim.seq !== null) {
      const known = await this.records.readEntry(claim.appId, claim.userId, claim.seq);
      if (known && known.source === claim.source && known.sourceId === claim.sourceId) return known;
    }
    let scanned = claim.fromSeq;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const last = await this.latest(claim.appId, claim.userId);
      const n = last?.seq ?? 0;
      for (let seq = scanned + 1; seq <= n; seq++) {
        const entry = seq === n ? last : await this.records.readEntry(claim.appId, claim.userId, seq);
        if (entry && entry.source === claim.source && entry.sourceId === claim.sourceId) {
          await this.records.markClaim(claim.key, seq).catch(() => undefined);
          return entry;
        }
      }
      scanned = Math.max(scanned, n);
      const { state, reason } = decide(last?.state ?? emptyState(), claim.change);
      const change = claim.change;
      const entry: LedgerEntry = {
        appId: claim.appId,
        userId: claim.userId,
        seq: n + 1,
        source: claim.source,
        sourceId: claim.sourceId,
        outcome: reason ? "refused" : "applied",
        reason,
        currencies: change.currencies ?? {},
        items: change.items ?? [],
        purchase: change.purchase ? { itemId: change.purchase.itemId, quantity: change.purchase.quantity } : null,
        note: change.reason ?? null,
        ...(change.liveEvent ? { liveEvent: change.liveEvent } : {}),
        state,
        at: change.at,
      };
      if (await this.records.insertEntry(entry, claim.key)) {
        this.crashPoint?.("after_entry", claim.source);
        // Hints only: a lost write costs a later reader a few more point reads, never an outcome.
        await this.records.raiseHead(claim.appId, claim.userId, entry.seq).catch(() => undefined);
        await this.records.markClaim(claim.key, entry.seq).catch(() => undefined);
        return entry;
      }
      // Another process appended first: read again after a short, jittered pause.
      await sleep(Math.random() * Math.min(2 + round, 20));
    }
    throw new AppError("service_unavailable", { message: "The player's ledger is too busy; retry the same request" });
  }
}
