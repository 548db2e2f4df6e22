/**
 * What the server decided for this player (docs/liveops.md): flag values, experiment variants,
 * active and upcoming live events. The client only reads them: it never chooses a variant or an event,
 * and prices come from the catalog, where a sale is already applied.
 */
import type { ConditionalAnswer } from "./server-api";

export interface LiveEventView {
  eventId: string;
  name: string;
  startsAt: string | null;
  endsAt: string | null;
  active: boolean;
}

export interface PlayerConfigData {
  version: number;
  flags: Record<string, unknown>;
  experiments: Array<{ experimentId: string; variant: string }>;
  events: LiveEventView[];
}

export interface PlayerConfig extends PlayerConfigData {
  /** The flag's value, or `fallback` when the server has none or it is of another type than `fallback`. */
  flag<T>(key: string, fallback: T): T;
  /** The player's variant of an experiment, or undefined when they are not in it. */
  variant(experimentId: string): string | undefined;
}

export function playerConfig(data: PlayerConfigData): PlayerConfig {
  return {
    ...data,
    flag<T>(key: string, fallback: T): T {
      const value = data.flags[key];
      if (value === undefined) return fallback;
      const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
      return kind(value) === kind(fallback) ? (value as T) : fallback;
    },
    variant: (experimentId) => data.experiments.find((e) => e.experimentId === experimentId)?.variant,
  };
}

/** A GET of a protected route with If-None-Match (the session's token added by the client). */
export type ConditionalGet = <T>(path: string, etag: string | undefined) => Promise<ConditionalAnswer<T>>;

/** The config last fetched and its ETag: the next fetch is conditional (304 while nothing changed for the player). */
export interface HeldConfig {
  config: PlayerConfig;
  etag: string | undefined;
}

/**
 * Fetches the player's config, conditionally when one is held: a 304 keeps the held one. `onChange`
 * is told when the version differs from the held one's.
 */
export async function fetchConfig(get: ConditionalGet, held: HeldConfig | undefined, onChange?: (config: PlayerConfig) => void): Promise<HeldConfig> {
  const answer = await get<PlayerConfigData>("/api/config", held?.etag);
  if (answer.notModified && held) return held;
  if (answer.notModified) throw new Error("GET /api/config answered 304 to a request with no ETag");
  const next = { config: playerConfig(answer.data), etag: answer.etag };
  if (held && held.config.version !== next.config.version) onChange?.(next.config);
  return next;
}

/**
 * The config a GameClient holds: `fetch` asks conditionally and tells `changed` of a new version;
 * `announced` (a room's configChanged message) fetches once however many rooms said it, and tells
 * `changed` even when no config was held before.
 */
export class ConfigKeeper {
  private held: HeldConfig | undefined;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly get: ConditionalGet,
    private readonly changed: (config: PlayerConfig) => void,
  ) {}

  async fetch(): Promise<PlayerConfig> {
    this.held = await fetchConfig(this.get, this.held, this.changed);
    return this.held.config;
  }

  announced(): void {
    const before = this.held;
    this.pending ??= this.fetch()
      .then((config) => {
        if (!before) this.changed(config);
      })
      .catch(() => undefined) // the game's next config() asks again
      .finally(() => (this.pending = undefined));
  }
}
