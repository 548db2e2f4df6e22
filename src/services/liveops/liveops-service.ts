/**
 * Each app's live LiveOps definitions, and what one player gets from them (`for`). The settings'
 * definitions are version 0 until an operator publishes a newer one; every process reads the
 * latest stored version's number every LIVEOPS_REFRESH_MS (one small query per app), so a change is
 * served everywhere within it, without a restart. A player's evaluation is cached per definitions
 * version until the next start or end of an event or experiment; their facts for a short while.
 */
import { AppError } from "../../core/errors";
import type { Catalog } from "../../core/catalog";
import { checkDefinitions, emptyDefinitions, type LiveOpsDefinitions } from "../../core/liveops";
import { evaluate, limitedItemOnSale, rewardMultiplier, salePrice, type Evaluation } from "../../core/liveops-evaluate";
import type { PlayerFacts } from "../../core/liveops-rules";
import type { DefinitionsVersionInfo, LiveOpsStore } from "../../core/ports/liveops-store";
import type { Logger } from "../../logging/logger";
import { TtlLru } from "../ttl-lru";
import type { Offers } from "../economy/offers";
import { EventStamps, type EventStamp } from "./event-stamps";
import { liveOpsRecordsOf, type LiveOpsExportRow } from "./liveops-export";

/** What the server knows of a player besides the request: read when their cached facts expire. */
export type PlayerFactsSource = (app: string, userId: string) => Promise<Omit<PlayerFacts, "userId" | "app" | "appVersion">>;

/** What the request tells: the platform of the session, the client's reported version. */
export interface RequestFacts {
  platform?: string;
  appVersion?: string;
}

export interface PlayerConfig extends Evaluation {
  version: number;
}

interface Cached {
  version: number;
  request: string;
  facts: Omit<PlayerFacts, "appVersion">;
  factsUntil: number;
  stored: Record<string, string>;
  config: PlayerConfig;
}

const FACTS_TTL_MS = 30_000;
const CACHED_PLAYERS = 50_000;

export class LiveOpsService implements Offers {
  private readonly live = new Map<string, { version: number; definitions: LiveOpsDefinitions }>();
  private readonly players: TtlLru<Cached>;
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners = new Set<(app: string, version: number) => void>();
  private readonly stamps: EventStamps;

  constructor(
    private readonly store: LiveOpsStore,
    private readonly base: Readonly<Record<string, LiveOpsDefinitions>>,
    private readonly appKeys: readonly string[],
    private readonly factsOf: PlayerFactsSource,
    private readonly catalogOf: (app: string) => Catalog | undefined,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    for (const app of appKeys) this.live.set(app, { version: 0, definitions: base[app] ?? emptyDefinitions() });
    this.players = new TtlLru(CACHED_PLAYERS, 24 * 3600_000, now);
    this.stamps = new EventStamps(
      (app) => this.current(app),
      (app, userId) => this.players.get(`${app}\u0000${userId}`),
      async (app, userId) => ({ facts: await this.readFacts(app, userId), stored: await this.store.assignments(app, userId) }),
      now,
    );
  }

  /** What audiences are judged on, besides the request: the server's facts and the player's properties. */
  private async readFacts(app: string, userId: string): Promise<Omit<PlayerFacts, "appVersion">> {
    return { userId, app, ...(await this.factsOf(app, userId)), properties: await this.store.properties(app, userId) };
  }

  /** The player's experiment variants and active live events at `at`, for an analytics event (never assigns). */
  stampOf(app: string, userId: string, at: number): Promise<EventStamp> {
    return this.stamps.stampOf(app, userId, at);
  }

  async start(refreshMs: number): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch((err: unknown) => this.logger.warn({ err, event: "liveops_refresh_failed" }, "could not read the stored liveops versions; the current ones stay"));
    }, refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Takes every app's latest stored version that is newer than the one in use. */
  async refresh(): Promise<void> {
    for (const app of this.appKeys) {
      const latest = await this.store.latestVersion(app);
      const current = this.live.get(app)!;
      if (latest <= current.version) continue;
      const stored = await this.store.findDefinitions(app, latest);
      if (!stored) continue;
      const checked = checkDefinitions(stored.body, `stored liveops of ${app} v${latest}`);
      if ("problems" in checked) {
        this.logger.error({ event: "liveops_invalid", app, version: latest, problems: checked.problems }, "a stored liveops version is invalid; the previous one stays");
        continue;
      }
      this.live.set(app, { version: latest, definitions: checked.definitions });
      this.logger.info({ event: "liveops_changed", app, version: latest }, "liveops version in use");
      this.changed(app, latest);
    }
  }

  /**
   * Tells `listener` each time this process takes up a newer version of an app's definitions (its
   * own publish, or another process's seen by the refresh): rooms pass it on to their clients.
   * Returns the unsubscribe.
   */
  onChange(listener: (app: string, version: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(app: string, version: number): void {
    for (const listener of this.listeners) {
      try {
        listener(app, version);
      } catch (err) {
        this.logger.warn({ err, event: "liveops_listener_failed", app, version }, "a liveops change listener failed");
      }
    }
  }

  /** Every problem `body` would be refused for as the app's next version (none: it would publish). */
  check(app: string, body: unknown): string[] {
    const checked = checkDefinitions(body, `liveops of ${app}`, { previous: this.current(app).definitions, catalog: this.catalogOf(app) });
    return "problems" in checked ? checked.problems : [];
  }

  current(app: string): { version: number; definitions: LiveOpsDefinitions } {
    return this.live.get(app) ?? { version: 0, definitions: emptyDefinitions() };
  }

  /** What the player gets now: flags, experiments, events (and why: `reasons`). */
  async for(app: string, userId: string, request: RequestFacts = {}): Promise<PlayerConfig> {
    const { version, definitions } = this.current(app);
    const now = this.now();
    const key = `${app}\u0000${userId}`;
    const requestKey = `${request.platform ?? ""}\u0000${request.appVersion ?? ""}`;
    const cached = this.players.get(key);
    if (cached && cached.version === version && cached.request === requestKey && now < cached.config.validUntil && now < cached.factsUntil) return cached.config;
    const fresh = !cached || now >= cached.factsUntil;
    const facts = fresh ? await this.readFacts(app, userId) : cached.facts;
    const stored = fresh ? await this.store.assignments(app, userId) : { ...cached.stored };
    const known: PlayerFacts = { ...facts, ...(request.platform ? { platform: request.platform } : {}), ...(request.appVersion ? { appVersion: request.appVersion } : {}) };
    let evaluation = evaluate(definitions, known, stored, now);
    if (evaluation.newAssignments.length > 0) {
      for (const a of evaluation.newAssignments) {
        // The first record stands (another process may have assigned first): the variant served is the stored one.
        stored[a.experimentId] = await this.store.assign({ appId: app, userId, experimentId: a.experimentId, variant: a.variant, at: new Date(now).toISOString() });
      }
      evaluation = evaluate(definitions, known, stored, now);
    }
    const config = { version, ...evaluation };
    this.players.set(key, { version, request: requestKey, facts, factsUntil: fresh ? now + FACTS_TTL_MS : cached!.factsUntil, stored, config });
    return config;
  }

  /**
   * Sets a property of the player for audiences (`property` rules): server code's statement of a
   * fact (a VIP level, a tutorial done). This process sees it at once, the others within 30 s.
   */
  async setProperty(app: string, userId: string, key: string, value: unknown): Promise<void> {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(key)) throw new AppError("invalid_request", { message: "key: must be 1–64 of A-Z a-z 0-9 _ . -" });
    if (value === undefined || JSON.stringify(value).length > 4096) throw new AppError("invalid_request", { message: "value: must be JSON of at most 4096 characters" });
    await this.store.setProperty(app, userId, key, value);
    this.players.delete(`${app}\u0000${userId}`);
  }

  async offer(app: string, userId: string, item: { itemId: string }) {
    const config = await this.for(app, userId);
    return { onSale: limitedItemOnSale(this.current(app).definitions, config, item.itemId), sale: salePrice(config, item.itemId) };
  }

  /** An active event's multiplier; for ads also the flag `ad_reward_multiplier` (experiments, audiences) when defined. */
  async rewardFactor(app: string, userId: string, kind: "ads" | "giftPacks"): Promise<{ factor: number; eventId?: string }> {
    const config = await this.for(app, userId);
    const event = rewardMultiplier(config, kind);
    const flag = kind === "ads" && typeof config.flags.ad_reward_multiplier === "number" ? config.flags.ad_reward_multiplier : 1;
    return { factor: event.factor * flag, ...(event.eventId ? { eventId: event.eventId } : {}) };
  }

  /**
   * Stores `body` as the app's next version after checking it whole (every problem at once: 422
   * liveops_invalid, and the running version stays); `expectedVersion` guards against overwriting
   * a version the operator has not seen (409 version_conflict).
   */
  async publish(app: string, body: unknown, by: string, expectedVersion?: number): Promise<{ version: number }> {
    if (!this.appKeys.includes(app)) throw new AppError("invalid_request", { message: `Unknown app ${app} (apps: ${this.appKeys.join(", ")})` });
    await this.refresh();
    const running = this.current(app);
    const checked = checkDefinitions(body, `liveops of ${app}`, { previous: running.definitions, catalog: this.catalogOf(app) });
    if ("problems" in checked) throw new AppError("liveops_invalid", { message: checked.problems.join("; "), data: { problems: checked.problems } });
    const base = expectedVersion ?? running.version;
    const saved = await this.store.saveDefinitions(app, base, body, by, new Date(this.now()).toISOString());
    if (!saved) throw new AppError("version_conflict", { data: { app, version: base } });
    this.logger.info({ event: "liveops_changed", app, version: saved.version, by }, "liveops published by an operator");
    // The timer's refresh may have taken it up meanwhile (and told the listeners): once is enough.
    if (this.current(app).version < saved.version) {
      this.live.set(app, { version: saved.version, definitions: checked.definitions });
      this.changed(app, saved.version);
    }
    return { version: saved.version };
  }

  /** One version as published; 0 is the settings'. */
  async version(app: string, version: number): Promise<{ version: number; by: string | null; at: string | null; definitions: unknown }> {
    if (version === 0) return { version: 0, by: null, at: null, definitions: this.base[app] ?? emptyDefinitions() };
    const stored = await this.store.findDefinitions(app, version);
    if (!stored) throw new AppError("liveops_version_not_found", { data: { app, version } });
    return { version, by: stored.by, at: stored.at, definitions: stored.body };
  }

  history(app: string, options: { limit: number; before?: number }): Promise<DefinitionsVersionInfo[]> {
    return this.store.listVersions(app, options);
  }

  /** The player's assignments and properties per app, for the export. */
  recordsOf(userId: string): Promise<LiveOpsExportRow[]> {
    return liveOpsRecordsOf(this.store, this.appKeys, userId);
  }

  /** Publishes an older version's content again as the next version: history is only added to. */
  async rollback(app: string, to: number, by: string): Promise<{ version: number }> {
    const old = await this.version(app, to);
    return this.publish(app, old.definitions, by);
  }
}
