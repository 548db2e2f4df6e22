/**
 * What one player gets from an app's LiveOps definitions at one moment, and why.
 *
 * Precedence of a flag's value, highest first: the player's experiment variant > an active live
 * event > an audience-targeted value > the default. Overlaps of one kind: the entry listed first in
 * the definitions wins (the first experiment, the first active event, the flag's first matching
 * audience) — for flags, sale prices, reward multipliers alike.
 *
 * Experiments: a player's variant is the stored assignment when there is one (so it never changes
 * while the experiment runs, whatever happens to the weights), else a hash of experiment and player
 * over the current weights (the caller stores it: `newAssignments`). In a layer, a player takes part
 * in at most one running experiment: the one stored, else one chosen by a hash of layer and player.
 */
import { createHash } from "node:crypto";
import type { Experiment, Json, LiveEvent, LiveOpsDefinitions } from "./liveops";
import { matches, type PlayerFacts, type Rule } from "./liveops-rules";
import { currentOrNext, isActive } from "./liveops-schedule";

export interface Assignment {
  experimentId: string;
  variant: string;
}

export interface EventView {
  eventId: string;
  name: string;
  /** ISO times; null when open. */
  startsAt: string | null;
  endsAt: string | null;
  active: boolean;
}

export interface Evaluation {
  flags: Record<string, Json>;
  /** Why each flag has its value: `default`, `audience:<id>`, `event:<id>`, `experiment:<id>/<variant>`. */
  reasons: Record<string, string>;
  experiments: Assignment[];
  /** Assignments made by this evaluation, not stored yet. */
  newAssignments: Assignment[];
  /** Active and upcoming events of the player's audiences, in the definitions' order. */
  events: EventView[];
  /** The active events' definitions (economy overrides), in the definitions' order. */
  active: LiveEvent[];
  /** The evaluation stays right until this instant (the next start or end of an event or experiment). */
  validUntil: number;
}

/** A number in [0, 1) from the hash of the parts: the same on every process, for ever. */
export function bucket(...parts: string[]): number {
  return createHash("sha256").update(parts.join("\u0000")).digest().readUInt32BE(0) / 2 ** 32;
}

/** The variant the weights give to a point of [0, 1). */
export function variantAt(experiment: Pick<Experiment, "variants">, point: number): string {
  const total = experiment.variants.reduce((sum, v) => sum + v.weight, 0);
  let edge = 0;
  for (const v of experiment.variants) {
    edge += v.weight / total;
    if (point < edge && v.weight > 0) return v.variant;
  }
  return [...experiment.variants].reverse().find((v) => v.weight > 0)!.variant;
}

export function evaluate(defs: LiveOpsDefinitions, facts: PlayerFacts, stored: Readonly<Record<string, string>>, now: number): Evaluation {
  const audiences = new Map<string, Rule>(defs.audiences.map((a) => [a.audienceId, a.rule]));
  const inAudience = (audienceId: string | undefined) => {
    if (!audienceId) return true;
    const rule = audiences.get(audienceId);
    return rule !== undefined && matches(rule, facts, now, (id) => audiences.get(id));
  };
  let validUntil = Infinity;
  const boundary = (t: number) => {
    if (t > now && t < validUntil) validUntil = t;
  };

  const flags: Record<string, Json> = {};
  const reasons: Record<string, string> = {};
  for (const flag of defs.flags) {
    const targeted = flag.audiences.find((a) => inAudience(a.audienceId));
    flags[flag.key] = targeted ? targeted.value : flag.default;
    reasons[flag.key] = targeted ? `audience:${targeted.audienceId}` : "default";
  }

  const events: EventView[] = [];
  const active: LiveEvent[] = [];
  for (const event of defs.events) {
    if (!inAudience(event.audienceId)) continue;
    const window = currentOrNext(event, defs.timeZone, now);
    if (!window) continue;
    boundary(window.startsAt);
    boundary(window.endsAt);
    const on = isActive(window, now);
    const iso = (t: number) => (Number.isFinite(t) ? new Date(t).toISOString() : null);
    events.push({ eventId: event.eventId, name: event.name, startsAt: iso(window.startsAt), endsAt: iso(window.endsAt), active: on });
    if (on) active.push(event);
  }
  // Applied last-listed first, so that the first listed active event wins.
  for (const event of [...active].reverse()) {
    for (const [key, value] of Object.entries(event.flags)) {
      flags[key] = value;
      reasons[key] = `event:${event.eventId}`;
    }
  }

  const experiments: Assignment[] = [];
  const newAssignments: Assignment[] = [];
  const running = defs.experiments.filter((e) => {
    const starts = e.startsAt ? Date.parse(e.startsAt) : -Infinity;
    const ends = e.endsAt ? Date.parse(e.endsAt) : Infinity;
    boundary(starts);
    boundary(ends);
    return starts <= now && now < ends && inAudience(e.audienceId);
  });
  const chosen = new Set<string>();
  const layers = new Map<string, Experiment[]>();
  for (const e of running) {
    if (!e.layer) chosen.add(e.experimentId);
    else layers.set(e.layer, [...(layers.get(e.layer) ?? []), e]);
  }
  for (const [layer, members] of layers) {
    const held = members.find((e) => stored[e.experimentId] !== undefined && e.variants.some((v) => v.variant === stored[e.experimentId]));
    const pick = held ?? members[Math.floor(bucket("layer", layer, facts.userId) * members.length)];
    chosen.add(pick.experimentId);
  }
  for (const e of running) {
    if (!chosen.has(e.experimentId)) continue;
    const kept = stored[e.experimentId];
    const variant = kept !== undefined && e.variants.some((v) => v.variant === kept) ? kept : variantAt(e, bucket("experiment", e.experimentId, facts.userId));
    if (variant !== kept) newAssignments.push({ experimentId: e.experimentId, variant });
    experiments.push({ experimentId: e.experimentId, variant });
  }
  for (const assignment of [...experiments].reverse()) {
    const variant = running.find((e) => e.experimentId === assignment.experimentId)!.variants.find((v) => v.variant === assignment.variant)!;
    for (const [key, value] of Object.entries(variant.flags)) {
      flags[key] = value;
      reasons[key] = `experiment:${assignment.experimentId}/${assignment.variant}`;
    }
  }
  return { flags, reasons, experiments, newAssignments, events, active, validUntil };
}

/** The sale price of one of the item now (first listed active event with a price for it), or undefined. */
export function salePrice(evaluation: Pick<Evaluation, "active">, itemId: string): { prices: Record<string, number>; eventId: string } | undefined {
  const event = evaluation.active.find((e) => e.prices[itemId] !== undefined);
  return event ? { prices: event.prices[itemId], eventId: event.eventId } : undefined;
}

/** The multiplier of ad or gift-pack rewards (first listed active event with one), 1 when none. */
export function rewardMultiplier(evaluation: Pick<Evaluation, "active">, kind: "ads" | "giftPacks"): { factor: number; eventId?: string } {
  const event = evaluation.active.find((e) => e.rewardMultipliers[kind] !== undefined);
  return event ? { factor: event.rewardMultipliers[kind]!, eventId: event.eventId } : { factor: 1 };
}

/** Items listed as limited by any event: on sale only while one of the player's active events lists them. */
export function limitedItemOnSale(defs: LiveOpsDefinitions, evaluation: Pick<Evaluation, "active">, itemId: string): boolean {
  if (!defs.events.some((e) => e.limitedItems.includes(itemId))) return true;
  return evaluation.active.some((e) => e.limitedItems.includes(itemId));
}
