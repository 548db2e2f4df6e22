/**
 * `npm run config:check [-- --settings-dir <dir>] [-- --connect]`: validates the production settings
 * without starting anything; with `--connect` it also reaches the database, Redis and the platform
 * endpoints (connect-check.ts). Prints every problem and exits 1, or prints what would run and exits 0.
 */
import "../config/node-floor"; // first: on Node < 22 it says so and exits, before a dependency fails to load
import { parseArgs } from "node:util";
import { checkConnections, formatConnections } from "./connect-check";
import { checkSettings, formatCheck } from "./settings-check";

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { "settings-dir": { type: "string" }, connect: { type: "boolean" } } });
  const check = checkSettings(process.env, values["settings-dir"]);
  (check.ok ? process.stdout : process.stderr).write(`${formatCheck(check)}\n`);
  if (!check.ok) return 1;
  if (!values.connect) return 0;
  const results = await checkConnections(check.config);
  const failed = results.filter((r) => !r.ok);
  (failed.length === 0 ? process.stdout : process.stderr).write(`connections:\n${formatConnections(results)}\n`);
  if (failed.length > 0) process.stderr.write(`${failed.map((r) => r.what).join(", ")} did not answer\n`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`config:check failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
