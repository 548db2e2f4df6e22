/**
 * The rollup rows as the console and the CLI show them (the contract): derived ratios are
 * computed here from the stored counts, so they are always consistent with them.
 */
import { ALL, type AnalyticsStore, type DailyRow, type RetentionRow, type RollupQuery } from "../../core/ports/analytics-store";

export interface DailyReport {
  date: string;
  dau: number;
  wau: number;
  mau: number;
  newPlayers: number;
  payingPlayers: number;
  revenue: Record<string, number>;
  revenueCoins: number;
  /** Revenue per daily active player, per unit (2 decimals). */
  arpdau: Record<string, number>;
  /** Revenue per paying player, per unit (2 decimals). */
  arppu: Record<string, number>;
  /** Paying players / DAU (4 decimals). */
  payerConversion: number;
  adViews: number;
  adViewsPerDau: number;
  sessions: number;
  avgSessionSeconds: number;
  softPurchases: number;
  /** Soft currency given (gifts, mail, operators' grants) and spent or taken back, per currency. */
  softSources: Record<string, number>;
  softSinks: Record<string, number>;
}

export interface RetentionReport {
  date: string;
  size: number;
  retained: RetentionRow["retained"];
}

export function dailyReport(row: DailyRow): DailyReport {
  return {
    date: row.date,
    dau: row.dau,
    wau: row.wau,
    mau: row.mau,
    newPlayers: row.newPlayers,
    payingPlayers: row.payingPlayers,
    revenue: row.revenue,
    revenueCoins: row.revenueCoins,
    arpdau: perUnit(row.revenue, row.dau),
    arppu: perUnit(row.revenue, row.payingPlayers),
    payerConversion: ratio(row.payingPlayers, row.dau, 4),
    adViews: row.adViews,
    adViewsPerDau: ratio(row.adViews, row.dau, 2),
    sessions: row.sessions,
    avgSessionSeconds: row.sessions === 0 ? 0 : Math.round(row.sessionSeconds / row.sessions),
    softPurchases: row.softPurchases,
    // Rows rolled up before these were counted carry none: a rollup of their days fills them in.
    softSources: row.softSources ?? {},
    softSinks: row.softSinks ?? {},
  };
}

export class AnalyticsReports {
  constructor(private readonly store: Pick<AnalyticsStore, "daily" | "retention">) {}

  async daily(query: Partial<Pick<RollupQuery, "app" | "platform">> & Pick<RollupQuery, "from" | "to">): Promise<DailyReport[]> {
    return (await this.store.daily(withAll(query))).map(dailyReport);
  }

  async retention(query: Partial<Pick<RollupQuery, "app" | "platform">> & Pick<RollupQuery, "from" | "to">): Promise<RetentionReport[]> {
    return (await this.store.retention(withAll(query))).map(({ date, size, retained }) => ({ date, size, retained }));
  }
}

function withAll(query: Partial<RollupQuery> & Pick<RollupQuery, "from" | "to">): RollupQuery {
  return { app: query.app ?? ALL, platform: query.platform ?? ALL, from: query.from, to: query.to };
}

function perUnit(revenue: Record<string, number>, players: number): Record<string, number> {
  return Object.fromEntries(Object.entries(revenue).map(([unit, amount]) => [unit, ratio(amount, players, 2)]));
}

function ratio(a: number, b: number, decimals: number): number {
  if (b === 0) return 0;
  const scale = 10 ** decimals;
  return Math.round((a / b) * scale) / scale;
}

/** Rows as CSV (RFC 4180): nested objects become `field.key` columns. */
export function toCsv(rows: object[]): string {
  const flat = rows.map((row) => flatten(row as Record<string, unknown>));
  const columns = [...new Set(flat.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => {
    const text = v === null || v === undefined ? "" : String(v);
    return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [columns.join(","), ...flat.map((r) => columns.map((c) => cell(r[c])).join(","))].join("\n") + "\n";
}

function flatten(row: Record<string, unknown>, prefix = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (value && typeof value === "object" && !Array.isArray(value)) Object.assign(out, flatten(value as Record<string, unknown>, `${prefix}${key}.`));
    else out[`${prefix}${key}`] = value;
  }
  return out;
}
