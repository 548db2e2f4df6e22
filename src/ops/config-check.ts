/**
 * `npm run config:check [-- --settings-dir <dir>]`: validates the production settings without
 * starting anything. Prints every problem and exits 1, or prints what would run and exits 0.
 */
import { parseArgs } from "node:util";
import { checkSettings, formatCheck } from "./settings-check";

const { values } = parseArgs({ options: { "settings-dir": { type: "string" } } });
const check = checkSettings(process.env, values["settings-dir"]);
(check.ok ? process.stdout : process.stderr).write(`${formatCheck(check)}\n`);
process.exitCode = check.ok ? 0 : 1;
