/**
 * Colyseus's timeouts as our settings. @colyseus/core 0.18 reads them from process.env once, when
 * its modules are first loaded (`utils/Utils.cjs`: COLYSEUS_PRESENCE_SHORT_TIMEOUT and
 * COLYSEUS_MAX_CONCURRENT_CREATE_ROOM_WAIT_TIME; `Room.cjs`: COLYSEUS_SEAT_RESERVATION_TIME), into
 * constants nothing can change later. So the entry point parses our settings first, hands their
 * values to Colyseus here, and only then loads Colyseus (index.ts imports it dynamically). Our code
 * still reads no environment variable outside src/config/: this module only writes the ones
 * Colyseus reads, from the parsed configuration.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { AppConfig } from "../config/config";

// Node's own require, typed as Node's: the mini-game typings (test/runtime) declare a global
// `require` of their own without `resolve` or `cache`.
const nodeRequire = createRequire(__filename);

type ColyseusTimeouts = AppConfig["colyseus"];

/** The variables Colyseus 0.18 reads at import, with the values our settings give them. */
export function colyseusVariables(timeouts: ColyseusTimeouts): Record<string, string> {
  return {
    COLYSEUS_SEAT_RESERVATION_TIME: String(timeouts.seatReservationSec),
    COLYSEUS_PRESENCE_SHORT_TIMEOUT: String(timeouts.presenceRequestTimeoutMs),
  };
}

/** Where @colyseus/core keeps the constants (its package exports hide the file from a plain import). */
function colyseusUtilsPath(): string {
  return path.join(path.dirname(nodeRequire.resolve("@colyseus/core")), "utils", "Utils.cjs");
}

/**
 * Gives Colyseus our timeouts. Must run before anything loads @colyseus/core; if something already
 * did, the values it fixed are kept, so this says so instead of pretending.
 */
export function handColyseusTimeouts(timeouts: ColyseusTimeouts, environment: NodeJS.ProcessEnv = process.env): void {
  if (nodeRequire.cache[colyseusUtilsPath()]) {
    throw new Error("@colyseus/core was loaded before its timeouts were set: load the configuration first (see src/server/index.ts)");
  }
  Object.assign(environment, colyseusVariables(timeouts));
}

/** The presence request timeout Colyseus actually runs with (fixed when it was loaded). */
export function effectivePresenceTimeoutMs(): number {
  return (nodeRequire(colyseusUtilsPath()) as { REMOTE_ROOM_SHORT_TIMEOUT: number }).REMOTE_ROOM_SHORT_TIMEOUT;
}
