/**
 * What an operator sees of an app's running LiveOps definitions and the one-button changes the
 * console offers besides publishing a whole version: starting and stopping an experiment. Each
 * change is a new version (publish: checked whole, history only added to), never an edit in place.
 */
import { AppError } from "../../core/errors";
import type { LiveOpsDefinitions } from "../../core/liveops";
import { currentOrNext, isActive, type Schedule } from "../../core/liveops-schedule";
import type { LiveOpsService } from "./liveops-service";

export interface EventOverview {
  eventId: string;
  name: string;
  schedule: Schedule | null;
  /** The running or next occurrence (ISO; null: open), or null when none is left. */
  startsAt: string | null;
  endsAt: string | null;
  active: boolean;
  finished: boolean;
}

export interface ExperimentOverview {
  experimentId: string;
  startsAt: string | null;
  endsAt: string | null;
  running: boolean;
}

export interface LiveOpsOverview {
  app: string;
  version: number;
  by: string | null;
  at: string | null;
  definitions: LiveOpsDefinitions;
  events: EventOverview[];
  experiments: ExperimentOverview[];
}

const iso = (t: number) => (Number.isFinite(t) ? new Date(t).toISOString() : null);

export async function liveOpsOverview(liveops: LiveOpsService, app: string, now: number): Promise<LiveOpsOverview> {
  await liveops.refresh();
  const { version, definitions } = liveops.current(app);
  const stored = await liveops.version(app, version);
  const events = definitions.events.map((event) => {
    const window = currentOrNext(event, definitions.timeZone, now);
    return {
      eventId: event.eventId,
      name: event.name,
      schedule: event.schedule ?? null,
      startsAt: window ? iso(window.startsAt) : null,
      endsAt: window ? iso(window.endsAt) : null,
      active: isActive(window, now),
      finished: window === null,
    };
  });
  const experiments = definitions.experiments.map((e) => ({ experimentId: e.experimentId, startsAt: e.startsAt ?? null, endsAt: e.endsAt ?? null, running: running(e, now) }));
  return { app, version, by: stored.by, at: stored.at, definitions, events, experiments };
}

function running(e: { startsAt?: string; endsAt?: string }, now: number): boolean {
  return (!e.startsAt || Date.parse(e.startsAt) <= now) && (!e.endsAt || now < Date.parse(e.endsAt));
}

/**
 * Starts (from now, with no end) or stops (ends now) one experiment, as the app's next version.
 * Players keep their stored variant: a restarted experiment serves them the same one.
 */
export async function setExperimentRunning(
  liveops: LiveOpsService,
  input: { app: string; experimentId: string; run: boolean; by: string; expectedVersion?: number; now: number },
): Promise<{ version: number; experimentId: string; running: boolean }> {
  await liveops.refresh();
  const { version, definitions } = liveops.current(input.app);
  if (input.expectedVersion !== undefined && input.expectedVersion !== version) throw new AppError("version_conflict", { data: { app: input.app, version: input.expectedVersion } });
  const body = structuredClone(definitions);
  const experiment = body.experiments.find((e) => e.experimentId === input.experimentId);
  if (!experiment) throw new AppError("invalid_request", { message: `No experiment ${input.experimentId} in the running definitions of ${input.app}` });
  if (running(experiment, input.now) === input.run) throw new AppError("invalid_request", { message: `Experiment ${input.experimentId} is ${input.run ? "already running" : "not running"}` });
  const at = new Date(input.now).toISOString();
  if (input.run) {
    experiment.startsAt = at;
    delete experiment.endsAt;
  } else {
    experiment.endsAt = at;
    if (experiment.startsAt && Date.parse(experiment.startsAt) >= input.now) delete experiment.startsAt;
  }
  const saved = await liveops.publish(input.app, body, input.by, version);
  return { version: saved.version, experimentId: input.experimentId, running: input.run };
}
