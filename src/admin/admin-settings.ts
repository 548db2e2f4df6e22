/**
 * Which settings `npm run admin` reads: the ones the server it acts on started with. An explicit
 * NODE_ENV decides. Without one, a host with the operator's `arena.local.env` is a production host
 * (as pm2 runs it); any other is a development checkout, whose `npm start` read `.env` and the
 * built-in development defaults, so the CLI reads those too instead of refusing arena.env's placeholders.
 */
import fs from "node:fs";
import path from "node:path";
import { LOCAL_SETTINGS, projectRoot, settingsFiles, type Env } from "../config/settings-files";

export interface AdminEnvironment {
  env: Env;
  /** How NODE_ENV was decided, for the first line of a refusal. */
  why: "set" | "local settings file" | "no local settings file";
}

export function adminEnvironment(processEnv: Env = process.env, root = projectRoot()): AdminEnvironment {
  if (processEnv.NODE_ENV) return { env: processEnv, why: "set" };
  if (fs.existsSync(path.join(root, LOCAL_SETTINGS))) return { env: { ...processEnv, NODE_ENV: "production" }, why: "local settings file" };
  return { env: { ...processEnv, NODE_ENV: "development" }, why: "no local settings file" };
}

/** One line: which environment and files were read, and how to read the other ones. */
export function describeSettings(environment: AdminEnvironment, root = projectRoot()): string {
  const mode = environment.env.NODE_ENV;
  const files = settingsFiles(environment.env, root)
    .map((f) => path.relative(root, f))
    .join(" < ");
  const reason =
    environment.why === "set"
      ? "NODE_ENV is set"
      : environment.why === "local settings file"
        ? `NODE_ENV is unset and ${LOCAL_SETTINGS} exists`
        : `NODE_ENV is unset and there is no ${LOCAL_SETTINGS}, as on a development checkout`;
  const other = mode === "production" ? "NODE_ENV=development npm run admin -- … for a server started with npm start" : "NODE_ENV=production npm run admin -- … for the production settings";
  return `admin read the ${mode} settings (${files} < environment; ${reason}); run ${other}`;
}
