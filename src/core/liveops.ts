/**
 * An app's LiveOps definitions: flags, audiences, experiments and live events (docs/liveops.md).
 * Pure types and the check that reports every problem at once, each naming the entry it is about,
 * like the catalog's (catalog.ts). The server evaluates them (liveops-evaluate.ts); clients only
 * read the outcome, never choose a variant or an event.
 */
import { z } from "zod";
import { type Catalog } from "./catalog";
import { ruleSchema, ruleAudiences, type Rule } from "./liveops-rules";
import { checkSchedule, scheduleSchema, type Schedule } from "./liveops-schedule";

const ID = /^[A-Za-z0-9_.-]{1,64}$/;
const id = z.string().regex(ID, "must be 1–64 of A-Z a-z 0-9 _ . -");
const isoTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 time, e.g. 2026-01-01T00:00:00Z" });
const overrides = z.record(z.string(), z.json());

const flagSchema = z.strictObject({
  key: id,
  description: z.string().max(500).optional(),
  default: z.json(),
  /** Audience-targeted values: the first listed audience the player is in gives the value. */
  audiences: z.array(z.strictObject({ audienceId: id, value: z.json() })).default([]),
});
const audienceSchema = z.strictObject({ audienceId: id, description: z.string().max(500).optional(), rule: ruleSchema });
const experimentSchema = z.strictObject({
  experimentId: id,
  description: z.string().max(500).optional(),
  audienceId: id.optional(),
  /** Players are in at most one running experiment of a layer. */
  layer: id.optional(),
  startsAt: isoTime.optional(),
  endsAt: isoTime.optional(),
  variants: z.array(z.strictObject({ variant: id, weight: z.number().int().min(0).max(10_000), flags: overrides.default({}) })).min(1, "needs at least one variant"),
});
const eventSchema = z.strictObject({
  eventId: id,
  name: z.string().min(1).max(100),
  audienceId: id.optional(),
  startsAt: isoTime.optional(),
  endsAt: isoTime.optional(),
  schedule: scheduleSchema.optional(),
  flags: overrides.default({}),
  /** A sale: the price of one, by currency (`coins` included), while the event is active. */
  prices: z.record(z.string(), z.record(z.string(), z.number().int().positive().max(1_000_000_000))).default({}),
  /** Multiplies what ads and gift packs grant while the event is active. */
  rewardMultipliers: z.strictObject({ ads: z.number().positive().max(100).optional(), giftPacks: z.number().positive().max(100).optional() }).default({}),
  /** Catalog items on sale only while an event listing them is active for the player. */
  limitedItems: z.array(id).default([]),
});

const entrySchemas = { flags: flagSchema, audiences: audienceSchema, experiments: experimentSchema, events: eventSchema } as const;
const SECTIONS = Object.keys(entrySchemas) as Array<keyof typeof entrySchemas>;
const shapeSchema = z.strictObject({
  timeZone: z.string().default("UTC"),
  flags: z.array(z.unknown()).default([]),
  audiences: z.array(z.unknown()).default([]),
  experiments: z.array(z.unknown()).default([]),
  events: z.array(z.unknown()).default([]),
});

export type Json = z.infer<ReturnType<typeof z.json>>;
export type Flag = z.output<typeof flagSchema>;
export type Audience = { audienceId: string; description?: string; rule: Rule };
export type Experiment = z.output<typeof experimentSchema>;
export type LiveEvent = Omit<z.output<typeof eventSchema>, "schedule"> & { schedule?: Schedule };
export interface LiveOpsDefinitions {
  timeZone: string;
  flags: Flag[];
  audiences: Audience[];
  experiments: Experiment[];
  events: LiveEvent[];
}

export const emptyDefinitions = (): LiveOpsDefinitions => ({ timeZone: "UTC", flags: [], audiences: [], experiments: [], events: [] });

/** The JSON type a flag's values must keep: its default's. */
export function jsonType(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/**
 * The definitions, or every problem with them, each prefixed with `where`. With `previous` (the
 * running version), a flag whose default changes JSON type is refused; with `catalog`, sales and
 * limited items must name the catalog's items and currencies.
 */
export function checkDefinitions(
  json: unknown,
  where: string,
  context: { previous?: LiveOpsDefinitions; catalog?: Catalog } = {},
): { definitions: LiveOpsDefinitions } | { problems: string[] } {
  const shape = shapeSchema.safeParse(json);
  if (!shape.success) return { problems: shape.error.issues.map((i) => `${where}: ${i.path.join(".") || "(top)"}: ${i.message}`) };
  const problems: string[] = [];
  const say = (at: string, message: string) => problems.push(`${where}: ${at}: ${message}`);
  const parsed = Object.fromEntries(
    SECTIONS.map((section) => [
      section,
      shape.data[section].map((entry, index) => {
        const one = (entrySchemas[section] as z.ZodType).safeParse(entry);
        if (one.success) return one.data;
        for (const i of one.error.issues) say(`${label(section, index, entry)}${i.path.length ? "." + i.path.join(".") : ""}`, i.message);
        return undefined;
      }),
    ]),
  ) as { [K in keyof LiveOpsDefinitions]: LiveOpsDefinitions[K] extends Array<infer E> ? Array<E | undefined> : never };
  if (!validTimeZone(shape.data.timeZone)) say("timeZone", `unknown time zone "${shape.data.timeZone}" (an IANA name, e.g. Asia/Shanghai)`);
  const rawIds = (section: keyof typeof entrySchemas, key: string) => new Set(shape.data[section].flatMap((e) => (e && typeof e === "object" && typeof (e as Record<string, unknown>)[key] === "string" ? [(e as Record<string, string>)[key]] : [])));
  const audienceIds = rawIds("audiences", "audienceId");
  const flagTypes = new Map<string, string>();
  const twice = (section: keyof typeof entrySchemas, key: string) => {
    const seen = new Set<string>();
    parsed[section].forEach((e, i) => {
      const value = e && (e as unknown as Record<string, string>)[key];
      if (!value) return;
      if (seen.has(value)) say(label(section, i, e), `${key} is listed twice`);
      seen.add(value);
    });
  };
  SECTIONS.forEach((s) => twice(s, { flags: "key", audiences: "audienceId", experiments: "experimentId", events: "eventId" }[s]));
  const knownAudience = (at: string, audienceId: string | undefined) => {
    if (audienceId && !audienceIds.has(audienceId)) say(at, `unknown audience "${audienceId}" (audiences: ${[...audienceIds].join(", ") || "none"})`);
  };
  parsed.flags.forEach((flag, i) => {
    if (!flag) return;
    const at = label("flags", i, flag);
    flagTypes.set(flag.key, jsonType(flag.default));
    flag.audiences.forEach((a, j) => {
      knownAudience(`${at}.audiences[${j}]`, a.audienceId);
      if (jsonType(a.value) !== jsonType(flag.default)) say(`${at}.audiences[${j}].value`, `must be a ${jsonType(flag.default)} like the default`);
    });
    const before = context.previous?.flags.find((f) => f.key === flag.key);
    if (before && jsonType(before.default) !== jsonType(flag.default)) say(at, `changes type from ${jsonType(before.default)} to ${jsonType(flag.default)} (add a new flag instead)`);
  });
  const checkOverrides = (at: string, values: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(values)) {
      const type = flagTypes.get(key);
      if (!type) say(`${at}.flags.${key}`, "unknown flag");
      else if (jsonType(value) !== type) say(`${at}.flags.${key}`, `must be a ${type} like the flag's default`);
    }
  };
  parsed.audiences.forEach((audience, i) => {
    if (!audience) return;
    for (const ref of ruleAudiences(audience.rule)) {
      knownAudience(`${label("audiences", i, audience)}.rule`, ref);
      if (ref === audience.audienceId) say(`${label("audiences", i, audience)}.rule`, "refers to itself");
    }
  });
  parsed.experiments.forEach((experiment, i) => {
    if (!experiment) return;
    const at = label("experiments", i, experiment);
    knownAudience(`${at}.audienceId`, experiment.audienceId);
    checkWindow(at, experiment.startsAt, experiment.endsAt, say);
    if (experiment.variants.reduce((sum, v) => sum + v.weight, 0) === 0) say(`${at}.variants`, "weights add up to 0");
    const names = new Set<string>();
    experiment.variants.forEach((v, j) => {
      if (names.has(v.variant)) say(`${at}.variants[${j}]`, `variant "${v.variant}" is listed twice`);
      names.add(v.variant);
      checkOverrides(`${at}.variants[${j}] (${v.variant})`, v.flags);
    });
  });
  parsed.events.forEach((event, i) => {
    if (!event) return;
    const at = label("events", i, event);
    knownAudience(`${at}.audienceId`, event.audienceId);
    checkWindow(at, event.startsAt, event.endsAt, say);
    if (event.schedule) for (const problem of checkSchedule(event.schedule)) say(`${at}.schedule`, problem);
    checkOverrides(at, event.flags);
    const catalog = context.catalog;
    if (!catalog) return;
    for (const [itemId, prices] of Object.entries(event.prices)) {
      const item = catalog.items.find((it) => it.itemId === itemId);
      if (!item) say(`${at}.prices.${itemId}`, "unknown item (not in the app's catalog)");
      else for (const currency of Object.keys(prices)) if (item.prices[currency] === undefined) say(`${at}.prices.${itemId}.${currency}`, `the item has no ${currency} price to put on sale`);
    }
    for (const itemId of event.limitedItems) if (!catalog.items.some((it) => it.itemId === itemId)) say(`${at}.limitedItems`, `unknown item "${itemId}" (not in the app's catalog)`);
  });
  if (problems.length > 0) return { problems };
  return { definitions: { timeZone: shape.data.timeZone, ...(parsed as unknown as Omit<LiveOpsDefinitions, "timeZone">) } };
}

function checkWindow(at: string, startsAt: string | undefined, endsAt: string | undefined, say: (at: string, message: string) => void): void {
  if (startsAt && endsAt && Date.parse(startsAt) >= Date.parse(endsAt)) say(at, "startsAt must be before endsAt");
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** `events[2] (summer-sale)`: the section, the index and the entry's id when it has one. */
function label(section: string, index: number, entry: unknown): string {
  const e = entry && typeof entry === "object" ? (entry as Record<string, unknown>) : {};
  const named = e.key ?? e.audienceId ?? e.experimentId ?? e.eventId;
  return typeof named === "string" ? `${section}[${index}] (${named})` : `${section}[${index}]`;
}

/** The example game's definitions: the embedded defaults ship them (docs/liveops.md walks through them). */
export function exampleDefinitions(): LiveOpsDefinitions {
  const result = checkDefinitions(
    {
      timeZone: "Asia/Shanghai",
      flags: [
        { key: "welcome_text", description: "The greeting on the title screen", default: "Welcome to the arena!" },
        { key: "ad_reward_multiplier", description: "Multiplies what a rewarded ad grants (read by the server)", default: 1 },
      ],
      audiences: [{ audienceId: "payers", description: "Players with a delivered paid order", rule: { payer: true } }],
      experiments: [
        {
          experimentId: "example-reward",
          description: "Does a double ad reward keep players longer?",
          layer: "rewards",
          // Not running until an operator moves startsAt: a running one would change half the players' ad rewards.
          startsAt: "2099-01-01T00:00:00Z",
          variants: [
            { variant: "control", weight: 50, flags: {} },
            { variant: "double", weight: 50, flags: { ad_reward_multiplier: 2 } },
          ],
        },
      ],
      // Not active until an operator gives it a window (startsAt/endsAt or a schedule).
      events: [{ eventId: "example-sale", name: "Weekend sale", startsAt: "2099-01-01T00:00:00Z", endsAt: "2099-01-03T00:00:00Z", prices: { sword: { coins: 20 }, potion: { gems: 5 } } }],
    },
    "example liveops",
  );
  if ("problems" in result) throw new Error(result.problems.join("; "));
  return result.definitions;
}
