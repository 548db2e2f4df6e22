/**
 * What an analytics event carries of LiveOps (docs/analytics.md): the player's experiment variants
 * and the live events active for them at the event's instant. Read only: stamping never assigns a
 * player to an experiment (a player is exposed when served the config, not when counted). Stamps are
 * made by the event writer, off the request: the player's facts and stored assignments come from
 * LiveOps' own cache of the player when it has one (fresh after an assignment in this process), else
 * are read once and kept a minute; an evaluation is reused for the player's later events until its
 * next boundary (an event's or experiment's start or end), so a batch costs one evaluation a player.
 */
import { evaluate } from "../../core/liveops-evaluate";
import type { LiveOpsDefinitions } from "../../core/liveops";
import type { PlayerFacts } from "../../core/liveops-rules";
import { TtlLru } from "../ttl-lru";

export interface EventStamp {
  experiments: Record<string, string>;
  liveEvents: string[];
}

export interface StampInputs {
  facts: PlayerFacts;
  stored: Readonly<Record<string, string>>;
}

interface Evaluated {
  version: number;
  inputs: StampInputs;
  from: number;
  until: number;
  stamp: EventStamp;
}

const KEPT_PLAYERS = 50_000;
const READ_TTL_MS = 60_000;

export class EventStamps {
  private readonly read: TtlLru<Promise<StampInputs>>;
  private readonly evaluated: TtlLru<Evaluated>;

  constructor(
    private readonly definitionsOf: (app: string) => { version: number; definitions: LiveOpsDefinitions },
    /** The player as LiveOps serves them now, when this process holds them. */
    private readonly cachedOf: (app: string, userId: string) => StampInputs | undefined,
    private readonly load: (app: string, userId: string) => Promise<StampInputs>,
    now: () => number,
  ) {
    this.read = new TtlLru(KEPT_PLAYERS, READ_TTL_MS, now);
    this.evaluated = new TtlLru(KEPT_PLAYERS, READ_TTL_MS, now);
  }

  async stampOf(app: string, userId: string, at: number): Promise<EventStamp> {
    const key = `${app}\u0000${userId}`;
    const { version, definitions } = this.definitionsOf(app);
    const inputs = this.cachedOf(app, userId) ?? (await this.loaded(key, app, userId));
    // New inputs (an assignment made since, facts read again) or another version: evaluated again.
    const last = this.evaluated.get(key);
    if (last && last.version === version && last.inputs === inputs && last.from <= at && at < last.until) return last.stamp;
    const evaluation = evaluate(definitions, inputs.facts, inputs.stored, at);
    const stamp: EventStamp = {
      // Only variants the player holds: one the evaluation would pick now is not an exposure.
      experiments: Object.fromEntries(evaluation.experiments.filter((a) => inputs.stored[a.experimentId] === a.variant).map((a) => [a.experimentId, a.variant])),
      liveEvents: evaluation.active.map((e) => e.eventId),
    };
    this.evaluated.set(key, { version, inputs, from: at, until: evaluation.validUntil, stamp });
    return stamp;
  }

  private loaded(key: string, app: string, userId: string): Promise<StampInputs> {
    let inputs = this.read.get(key);
    if (!inputs) {
      inputs = this.load(app, userId);
      this.read.set(key, inputs);
      inputs.catch(() => this.read.delete(key));
    }
    return inputs;
  }
}
