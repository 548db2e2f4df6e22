/**
 * Colyseus's own messages as JSON lines of our logger. Left alone, @colyseus/core writes them with
 * `console` (e.g. "Process … failed to respond. Cleaning it up." in plain text on stdout), outside
 * the JSON logs an operator collects. Passed as the Server's `logger` option (app.config.ts).
 */
import { format } from "node:util";
import type { Logger } from "../logging/logger";

type Level = "trace" | "debug" | "info" | "warn" | "error";

/** The console-like object Colyseus calls: each call becomes one line, tagged `component: colyseus`. */
export function colyseusLogger(logger: Logger): Record<Level, (...args: unknown[]) => void> {
  const child = logger.child({ component: "colyseus" });
  const at =
    (level: Level) =>
    (...args: unknown[]) => {
      if (!child.isLevelEnabled(level)) return;
      // Colyseus passes strings (a stack for errors), sometimes format strings with arguments.
      const [first, ...rest] = args;
      if (first instanceof Error && rest.length === 0) child[level]({ err: first }, first.message);
      else child[level](format(...args));
    };
  return { trace: at("trace"), debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/**
 * Loads a Colyseus module with `console` pointed at our logger meanwhile: @colyseus/tools prints
 * "optional .env file not found" with console.info when it is first loaded, before any logger of ours
 * can be handed to it.
 */
export function loadWithLogger<T>(logger: Logger, load: () => T): T {
  const colyseus = colyseusLogger(logger);
  const saved = { log: console.log, info: console.info, warn: console.warn };
  Object.assign(console, { log: colyseus.info, info: colyseus.info, warn: colyseus.warn });
  try {
    return load();
  } finally {
    Object.assign(console, saved);
  }
}
