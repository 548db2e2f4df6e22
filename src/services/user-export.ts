/**
 * A user's export (the data-access right: `npm run admin -- export` and the console's Export, one
 * record for both): one section per store port that holds data about a player. Each capability adds
 * its section where it is wired (src/admin/admin-context.ts, src/console/console-router.ts) (the account
 * and sessions, the order ledger; the economy's wallet, inventory, mail and ledger and the
 * leaderboards as they land), so the export walks every port without knowing them.
 * `test/unit/user-export-coverage.test.ts` fails when a port in src/core/ports is neither covered by
 * a section nor listed below as holding nothing per user.
 */
import type { SupportMessage } from "../core/ports/support-messages";
import { AppError } from "../core/errors";
import type { AnalyticsStore } from "../core/ports/analytics-store";
import type { EconomyStore } from "../core/ports/economy-store";
import type { OrderLedger } from "../core/ports/order-ledger";
import type { SaveStore } from "../core/ports/save-store";
import type { UserStore } from "../core/ports/user-store";
import { exportEconomy } from "./economy/economy-export";
import { presentOrder } from "./payments/order-view";
import type { SessionService } from "./session-service";

export interface ExportSection {
  /** The section's name (`account`, `orders`, `wallet`…), for errors and the coverage test. */
  name: string;
  /** The ports (file names in src/core/ports, without `.ts`) whose per-user data this section carries. */
  ports: readonly string[];
  /**
   * What the ports hold about the user, as top-level keys of the export (`orders: [...]`): JSON-ready,
   * never secrets (password hashes, tokens, keys). The first section answers undefined for an unknown user.
   */
  collect(userId: string): Promise<Record<string, unknown> | undefined>;
}

/**
 * Ports that hold nothing of a player to export, and why. A new port is either covered by a section
 * or added here with its reason: the coverage test makes that a decision, not an omission.
 */
export const PORTS_WITHOUT_PLAYER_DATA: Readonly<Record<string, string>> = {
  cache: "sessions and platform session keys are secrets that expire; the export says in which apps a session is live (sessionApps)",
  "coin-wallet": "the platform's wallet, asked live; what it moved is in the order ledger (orders)",
  "item-order-query": "asks the platform; a purchase it finds is recorded in the order ledger (orders)",
  "operator-store": "the console's operators are staff accounts, not players; their audit of actions on a player is the operators' record, kept for accountability",
  "rank-index": "a copy of the leaderboard store's records, kept only to serve ranks fast and rebuilt from it; the leaderboards section exports the records",
  "reward-grants": "writes only: what it grants is kept by the economy's ledger, wallet and inventory ports, each exported by its own section",
  "erasure-marks": "an erase's own bookkeeping (the user id and when the erase began and ended), kept only while an erase runs and a day after",
  "live-gift-ledger": "gifts of a Douyin live stream's viewers, who are Douyin users known by sec_openid, not players of ours",
};

export class UserExport {
  private readonly sections: ExportSection[] = [];

  /** Adds a capability's section; a name may be used once. */
  add(section: ExportSection): this {
    if (this.sections.some((s) => s.name === section.name)) throw new Error(`export section "${section.name}" is added twice`);
    this.sections.push(section);
    return this;
  }

  /** The ports the sections cover. */
  coveredPorts(): Set<string> {
    return new Set(this.sections.flatMap((s) => s.ports));
  }

  sectionNames(): string[] {
    return this.sections.map((s) => s.name);
  }

  /**
   * Every section for the user. The first section decides whether the user exists (it must answer
   * undefined for an unknown user); the others are read in parallel after it.
   */
  async collect(userId: string): Promise<Record<string, unknown>> {
    const [first, ...rest] = this.sections;
    if (!first) throw new Error("no export sections");
    const head = await first.collect(userId);
    if (head === undefined) throw new AppError("player_not_found");
    const parts = await Promise.all(rest.map((s) => s.collect(userId)));
    const out: Record<string, unknown> = { ...head };
    parts.forEach((part, i) => {
      for (const [key, value] of Object.entries(part ?? {})) {
        if (key in out) throw new Error(`export section "${rest[i].name}" repeats the key "${key}"`);
        out[key] = value;
      }
    });
    return out;
  }
}

/** How many of a player's orders the export lists, newest first (a player with more is not a person). */
export const EXPORT_ORDER_LIMIT = 10_000;
/** How many of a player's analytics events the export lists, oldest first; `analyticsEventsTruncated` says when there were more. */
export const EXPORT_EVENT_LIMIT = 100_000;
const EVENT_PAGE = 1000;

export interface UserExportSources {
  store: Pick<UserStore, "exportUser">;
  sessions: Pick<SessionService, "liveApps">;
  /** Opened on first use: the admin CLI opens the payment services only when a command needs them. */
  ledger(): Promise<Pick<OrderLedger, "listByUser">>;
  /** The economy's store, likewise opened on first use. */
  economy(): Promise<Pick<EconomyStore, "appsOf" | "state" | "entries">>;
  /** The player's records on every board of every app (leaderboard-store). */
  leaderboardRecords(userId: string): Promise<unknown[]>;
  /** The reward sources' stores (ad views, mail: docs/economy-rewards.md), opened on first use; absent: the section is empty. */
  rewards?(): Promise<{ recordsOf(userId: string): Promise<{ mail: unknown[]; claims: unknown[]; adViews: unknown[] }> }>;
  /** The cloud saves' store (docs/saves.md), opened on first use; absent: the section is empty. */
  saves?(): Promise<Pick<SaveStore, "listByOwner">>;
  /** The player's customer-service messages and the replies to them (docs/growth.md); absent: the section is empty. */
  supportMessages?(userId: string): Promise<SupportMessage[]>;
  /** The player's LiveOps assignments and properties per app (liveops-export.ts); absent: the section is empty. */
  liveops?(userId: string): Promise<unknown[]>;
  /** The analytics store (docs/analytics.md), opened on first use; absent: the section is empty. */
  analytics?(): Promise<Pick<AnalyticsStore, "userEvents">>;
}

/** The export as the server's stores hold it today; a new store port adds its section here. */
export function buildUserExport(sources: UserExportSources): UserExport {
  return new UserExport()
    .add({
      name: "account",
      ports: ["user-store"],
      collect: async (id) => {
        const record = await sources.store.exportUser(id);
        return record ? { user: record.user, identities: record.identities } : undefined;
      },
    })
    .add({
      name: "sessions",
      ports: [],
      collect: async (id) => {
        const sessionApps = await sources.sessions.liveApps(id);
        return { sessionLive: sessionApps.length > 0, sessionApps };
      },
    })
    .add({
      name: "orders",
      ports: ["order-ledger"],
      collect: async (id) => ({ orders: (await (await sources.ledger()).listByUser(id, { limit: EXPORT_ORDER_LIMIT })).map(presentOrder) }),
    })
    .add({
      name: "economy",
      ports: ["economy-store"],
      collect: async (id) => ({ economy: await exportEconomy(await sources.economy(), id) }),
    })
    .add({
      name: "leaderboards",
      ports: ["leaderboard-store"],
      collect: async (id) => ({ leaderboards: await sources.leaderboardRecords(id) }),
    })
    .add({
      name: "rewards",
      ports: ["ad-views", "mail-store"],
      collect: async (id) => {
        if (!sources.rewards) return {};
        const { mail, claims, adViews } = await (await sources.rewards()).recordsOf(id);
        return { mail, mailClaims: claims, adViews };
      },
    })
    .add({
      name: "saves",
      ports: ["save-store"],
      collect: async (id) => {
        if (!sources.saves) return {};
        const objects = await (await sources.saves()).listByOwner(id);
        return { saves: objects.map(({ ownerId: _owner, ...object }) => object) };
      },
    })
    .add({
      name: "support",
      ports: ["support-messages"],
      collect: async (id) => (sources.supportMessages ? { supportMessages: (await sources.supportMessages(id)).map(({ userId: _user, ...message }) => message) } : {}),
    })
    .add({
      name: "liveops",
      ports: ["liveops-store"],
      collect: async (id) => (sources.liveops ? { liveops: await sources.liveops(id) } : {}),
    })
    .add({
      name: "analytics",
      ports: ["analytics-store"],
      collect: async (id) => (sources.analytics ? exportEvents(await sources.analytics(), id) : {}),
    });
}

/** Every analytics event of the player (what the server and their client recorded), oldest first, up to EXPORT_EVENT_LIMIT. */
async function exportEvents(store: Pick<AnalyticsStore, "userEvents">, userId: string): Promise<Record<string, unknown>> {
  const events: Awaited<ReturnType<AnalyticsStore["userEvents"]>> = [];
  for (;;) {
    const last = events.at(-1);
    const page = await store.userEvents({ userId, ...(last ? { after: { at: last.at, id: last.id } } : {}), limit: Math.min(EVENT_PAGE, EXPORT_EVENT_LIMIT + 1 - events.length) });
    events.push(...page);
    if (page.length === 0 || events.length > EXPORT_EVENT_LIMIT) break;
  }
  const truncated = events.length > EXPORT_EVENT_LIMIT;
  return { analyticsEvents: events.slice(0, EXPORT_EVENT_LIMIT).map(({ userId: _user, ...event }) => event), ...(truncated ? { analyticsEventsTruncated: true } : {}) };
}
