/**
 * What the server decided for this player (docs/liveops.md): flag values, experiment variants,
 * active and upcoming live events. The client only reads them: it never chooses a variant or an event,
 * and prices come from the catalog, where a sale is already applied.
 */
import type { AuthedRequest } from "./payments";

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

/** Fetches the player's config; `onChange` is told when its version differs from the last one fetched. */
export async function fetchConfig(request: AuthedRequest, last: PlayerConfig | undefined, onChange?: (config: PlayerConfig) => void): Promise<PlayerConfig> {
  const config = playerConfig(await request<PlayerConfigData>("GET", "/api/config"));
  if (last && last.version !== config.version) onChange?.(config);
  return config;
}
