import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "./settings-files";

/** The version in package.json: what the API description and the operators see. */
export function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(projectRoot(), "package.json"), "utf8")) as { version?: unknown };
  return typeof manifest.version === "string" ? manifest.version : "0.0.0";
}
