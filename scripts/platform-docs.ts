/**
 * The platform table of docs/platforms.md, generated from the registry (`npm run docs:platforms`
 * rewrites it; a unit test fails when it is stale). Hand-written prose stays outside the markers.
 * The table lives beside the README rather than in it: it is reference material, one wide row per
 * platform, and the README links to it.
 */
import fs from "node:fs";
import path from "node:path";
import { platformDefinitions } from "../src/platforms/registry";
import type { PlatformDefinition } from "../src/platforms/platform";
import { simulatorPathPrefixes } from "../src/simulator/simulator-server";

export const PLATFORM_DOCS = path.resolve(__dirname, "../docs/platforms.md");
export const START = "<!-- platforms:start (generated from src/platforms/registry.ts by `npm run docs:platforms`; do not edit) -->";
export const END = "<!-- platforms:end -->";

const code = (s: string) => `\`${s}\``;
const FIELD_NAMES: Record<string, string> = { openid: "openid", anonymousOpenid: "anonymous openid", unionid: "unionid" };

export function renderPlatformDocs(platforms: readonly PlatformDefinition[] = platformDefinitions): string {
  const prefixes = simulatorPathPrefixes(platforms);
  const rows = platforms.map((p) => {
    const prefix = p.name.toUpperCase();
    const params = p.codeParams.map((c) => `${c}=…`).join("&");
    const settings = [`${prefix}_APP_ID`, `${prefix}_APP_SECRET`, `${prefix}_API_BASE_URL`, ...Object.keys(p.extraSettings?.shape ?? {})].map(code).join(", ");
    const paths = p.simulator.routes.map((r) => code(`${r.method} ${prefixes.get(p.name)}${r.path}`)).join("<br>");
    return [
      `${p.displayName} (${code(p.name)})`,
      [
        `GET /api/minigame/${p.name}/login?${params}`,
        `GET /api/minigame/${p.name}/access_token`,
        `POST /api/minigame/${p.name}/access_token/invalidate`,
        ...(p.playerData?.openData ? [`POST /api/minigame/${p.name}/decrypt`, `POST /api/minigame/${p.name}/signature/verify`] : []),
        ...(p.playerData?.sessionCheck ? [`GET /api/minigame/${p.name}/session_key/check`] : []),
        ...(p.playerData?.phoneNumber ? [`POST /api/minigame/${p.name}/phone_number`] : []),
      ]
        .map(code)
        .join("<br>"),
      Object.keys(p.emptyResponseFields()).map(code).join(", "),
      p.userKeyOrder.map((k) => FIELD_NAMES[k]).join(", then "),
      `${settings}<br>API: ${p.defaultApiBaseUrl}`,
      `${paths}<br>app ${code(p.simulatorApp.appId)} / ${code(p.simulatorApp.appSecret)}`,
    ];
  });
  const header = ["Platform", "Routes", "Platform fields in `data`", "User key", "Settings", "Simulator"];
  const table = [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
  const substitutions = platforms
    .filter((p) => p.simulator.answersAs && Object.keys(p.simulator.answersAs).length > 0)
    .map((p) => `- ${p.displayName} has no error for ${Object.entries(p.simulator.answersAs!).map(([from, to]) => `${code(`${from}…`)} (answered as ${code(`${to}…`)})`).join(" or ")}.`);
  return [START, table, ...(substitutions.length ? ["", "Simulator prefixes a platform cannot express:", "", ...substitutions] : []), END].join("\n");
}

/** The document with its generated section replaced. */
export function withPlatformDocs(document: string): string {
  const start = document.indexOf(START);
  const end = document.indexOf(END);
  if (start === -1 || end === -1) throw new Error("docs/platforms.md lacks the platform markers");
  return document.slice(0, start) + renderPlatformDocs() + document.slice(end + END.length);
}

if (require.main === module) {
  fs.writeFileSync(PLATFORM_DOCS, withPlatformDocs(fs.readFileSync(PLATFORM_DOCS, "utf8")));
  process.stdout.write("docs/platforms.md platform table regenerated\n");
}
