// Builds the client: dist/index.cjs and dist/index.mjs (@colyseus/sdk bundled, @colyseus/schema left
// as a dependency), dist/types (declarations), and dist/minigame-client.js, the drop-in file with
// @colyseus/sdk inside
// for projects without a bundler (a mini-game's `require`, or a <script> tag). Also copies the
// drop-in file into the examples. `node build.mjs --check` only reports whether dist is current.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import zlib from "node:zlib";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const dist = path.join(here, "dist");
const DROP_IN = path.join(dist, "minigame-client.js");
const EXAMPLES = ["wechat-minigame", "douyin-minigame"].map((name) => path.join(here, "..", "examples", name, "minigame-client.js"));

let esbuild;
try {
  esbuild = require("esbuild");
} catch {
  // `npm ci --omit=dev` has no esbuild; production never serves the playground.
  console.warn("minigame-client: esbuild is not installed, skipping the client build");
  process.exit(0);
}

/**
 * @colyseus/sdk's `legacy` module defines `globalThis.FormData` when missing and polyfills
 * `ArrayBuffer.isView` (Android 4.4). The client patches no global, so it is left out; every runtime
 * we support has ArrayBuffer.isView.
 */
const skipColyseusLegacy = {
  name: "skip-colyseus-legacy",
  setup(build) {
    build.onResolve({ filter: /^\.\/legacy(\.m?js|\.ts)?$/ }, (args) =>
      args.importer.includes(`${path.sep}@colyseus${path.sep}sdk${path.sep}`) ? { path: args.path, namespace: "colyseus-legacy" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "colyseus-legacy" }, () => ({ contents: "", loader: "js" }));
  },
};

/**
 * @colyseus/sdk is bundled (without its legacy globals; its HTTP and socket layers are replaced at
 * run time by the runtime's) into every build.
 * The library builds leave @colyseus/schema to the game's own copy, so state classes it defines
 * for `rootSchema` are the same classes the decoder sees.
 */
const common = {
  bundle: true,
  // The ES module builds of @colyseus/sdk and @colyseus/schema tree-shake (the schema encoder goes).
  platform: "neutral",
  mainFields: ["module", "main"],
  conditions: ["import"],
  // Mini-game runtimes: iOS JavaScriptCore and Android V8 of the last years; no ?. or ?? needed.
  target: "es2017",
  // The SDK's socket layer is replaced at run time; keep Node's `ws` out.
  alias: { ws: path.join(here, "src", "colyseus", "ws-unused.ts") },
  plugins: [skipColyseusLegacy],
  logLevel: "warning",
};

export const dropInOptions = {
  ...common,
  entryPoints: [path.join(here, "src", "index.ts")],
  format: "iife",
  // A browser <script> gets the global `MinigameClient`; a mini-game's `require("./minigame-client.js")`
  // (CommonJS, where that `var` stays module-local) gets it as module.exports.
  globalName: "MinigameClient",
  footer: { js: 'if(typeof module==="object"&&module&&typeof module.exports==="object")module.exports=MinigameClient;' },
  minify: true,
  legalComments: "none",
};

async function build() {
  fs.rmSync(dist, { recursive: true, force: true });
  fs.mkdirSync(dist, { recursive: true });
  const library = { ...common, entryPoints: [path.join(here, "src", "index.ts")], external: ["@colyseus/schema"] };
  await esbuild.build({ ...library, format: "cjs", outfile: path.join(dist, "index.cjs") });
  await esbuild.build({ ...library, format: "esm", outfile: path.join(dist, "index.mjs") });
  await esbuild.build({ ...dropInOptions, outfile: DROP_IN });

  const tsc = require.resolve("typescript/bin/tsc");
  const types = spawnSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.json")], { stdio: "inherit" });
  if (types.status !== 0) throw new Error("client declarations failed to build");

  for (const copy of EXAMPLES) if (fs.existsSync(path.dirname(copy))) fs.copyFileSync(DROP_IN, copy);
  const bytes = fs.readFileSync(DROP_IN);
  console.log(`minigame-client: dist/minigame-client.js ${kib(bytes.length)} minified, ${kib(zlib.gzipSync(bytes, { level: 9 }).length)} gzipped`);
}

function kib(n) {
  return `${(n / 1024).toFixed(1)} KiB`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  build().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
