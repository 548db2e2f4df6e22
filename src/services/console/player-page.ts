/**
 * One page per player in the console: the profile (restriction, mute, identities, live sessions),
 * the last login per app, the wallet and inventory of one app with its ledger (what each change
 * granted or took, when, from which source and why, and which operator where one did it), orders,
 * mail and leaderboard records. One read for the support person, composed from the services that
 * own each part; a part whose capability is not wired is null. Knows nothing of Express.
 */
import type { LedgerEntry } from "../../core/ports/economy-store";
import type { EconomyStore } from "../../core/ports/economy-store";
import type { Order } from "../../core/ports/order-ledger";
import type { ItemCount } from "../../core/ports/reward-grants";
import type { LeaderboardService } from "../leaderboards/leaderboard-service";
import type { MailService, PlayerMail } from "../rewards/mail-service";
import type { SessionService } from "../session-service";
import type { AuditLog } from "./audit-log";
import type { ConsolePlayers, PlayerOverview } from "./console-players";

/** How many ledger entries and orders the page shows, newest first. */
const LEDGER_ROWS = 100;
const ORDER_ROWS = 50;

export interface LedgerRow {
  seq: number;
  source: string;
  sourceId: string;
  outcome: "applied" | "refused";
  /** Why a change was refused (insufficient_funds…), else null. */
  refusal: string | null;
  currencies: Record<string, number>;
  items: ItemCount[];
  /** The reason given with the change (an operator's, a mail's). */
  note: string | null;
  /** The operator whose console action made the change (from the audit trail), else null. */
  by: string | null;
  at: string;
}

export interface PlayerPageView {
  overview: PlayerOverview;
  /** When each live session began, by app; a player with no live session has none to show. */
  logins: Array<{ app: string; at: string }>;
  app: string;
  wallet: { apps: string[]; balances: Record<string, number>; items: ItemCount[] } | null;
  ledger: LedgerRow[] | null;
  orders: Order[];
  mail: PlayerMail[] | null;
  records: Awaited<ReturnType<LeaderboardService["recordsOf"]>> | null;
}

export interface PlayerPageDeps {
  players: Pick<ConsolePlayers, "overview" | "orders">;
  sessions: Pick<SessionService, "sessionStarts">;
  audit: Pick<AuditLog, "search">;
  economy?: Pick<EconomyStore, "state" | "entries" | "appsOf">;
  mail?: Pick<MailService, "list">;
  leaderboards?: Pick<LeaderboardService, "recordsOf">;
}

/** The console actions that change a player's ledger, and the detail field naming the ledger entry's source id. */
const OPERATOR_SOURCES: Record<string, { action: string; field: string }> = {
  operator: { action: "reward.grant", field: "grantId" },
  operator_debit: { action: "reward.debit", field: "debitId" },
  mail: { action: "mail.send", field: "mailId" },
};

export class PlayerPage {
  constructor(private readonly deps: PlayerPageDeps) {}

  async of(userId: string, app: string): Promise<PlayerPageView> {
    const overview = await this.deps.players.overview(userId);
    const { economy, mail, leaderboards } = this.deps;
    const [logins, orders, state, apps, entries, mailList, records] = await Promise.all([
      this.deps.sessions.sessionStarts(userId),
      this.deps.players.orders(userId).then((all) => all.slice(0, ORDER_ROWS)),
      economy?.state(app, userId),
      economy?.appsOf(userId),
      economy?.entries(app, userId),
      mail?.list(app, userId),
      leaderboards?.recordsOf(app, userId),
    ]);
    const wallet = state && apps ? { apps, balances: state.balances, items: Object.entries(state.items).map(([itemId, count]) => ({ itemId, count })) } : null;
    const ledger = entries ? await this.ledgerRows(userId, app, entries) : null;
    return { overview, logins, app, wallet, ledger, orders, mail: mailList ?? null, records: records ?? null };
  }

  /** The newest entries, each with the operator who made it where a console action did (the ledger keeps no operator). */
  private async ledgerRows(userId: string, app: string, entries: LedgerEntry[]): Promise<LedgerRow[]> {
    const newest = entries.slice(-LEDGER_ROWS).reverse();
    const by = new Map<string, string>();
    if (newest.some((e) => e.source in OPERATOR_SOURCES)) {
      const [own, toAll] = await Promise.all([
        this.deps.audit.search({ target: userId, outcome: "ok", limit: 1000 }),
        this.deps.audit.search({ target: `app:${app}`, action: "mail.send", outcome: "ok", limit: 1000 }),
      ]);
      // Oldest first, so the first console action that made an entry names it (a repeat changes nothing).
      for (const entry of [...own, ...toAll].reverse()) {
        const id = entry.detail?.[Object.values(OPERATOR_SOURCES).find((s) => s.action === entry.action)?.field ?? ""];
        if (typeof id === "string" && !by.has(`${entry.action}\0${id}`)) by.set(`${entry.action}\0${id}`, entry.actor);
      }
    }
    return newest.map((e) => {
      const known = OPERATOR_SOURCES[e.source];
      // A mail's ledger entry is keyed `<mailId>:<userId>`.
      const id = e.source === "mail" ? e.sourceId.slice(0, e.sourceId.lastIndexOf(":")) : e.sourceId;
      return {
        seq: e.seq,
        source: e.source,
        sourceId: e.sourceId,
        outcome: e.outcome,
        refusal: e.reason,
        currencies: e.currencies,
        items: e.items,
        note: e.note,
        by: known ? (by.get(`${known.action}\0${id}`) ?? null) : null,
        at: e.at,
      };
    });
  }
}
