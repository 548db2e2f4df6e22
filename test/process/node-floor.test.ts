/**
 * Node 22 as the floor. scripts/node.sh brings Node 22 where the machine's `node` is older and
 * leaves a newer one alone; every command's entry file refuses an older Node with one clear message.
 * The script runs here against a stand-in `node` and `npm` (no download), which count its calls.
 */
import assert from "node:assert/strict";
import { execFile, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NODE_FLOOR, nodeFloorProblem } from "../../src/config/node-floor";
import { ROOT } from "../support/build";

const SCRIPT = path.join(ROOT, "scripts/node.sh");
const RELEASE = /^MINIGAME_NODE_RELEASE=(\S+)/m.exec(fs.readFileSync(SCRIPT, "utf8"))![1];

/** A folder with a `node` that reports `version` and an `npm` whose `pack` writes a Node package whose node reports `release`. */
function standIns(version: string, release = RELEASE): { bin: string; npmLog: string } {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), "node-floor-bin-"));
  const npmLog = path.join(bin, "npm.log");
  fs.writeFileSync(path.join(bin, "node"), `#!/bin/sh\necho v${version}\n`, { mode: 0o755 });
  fs.writeFileSync(
    path.join(bin, "npm"),
    `#!/bin/sh
echo "$*" >> "${npmLog}"
[ "$1" = pack ] || exit 1
name="$3"; file="$(echo "\${name%@*}" | tr / -)-\${name##*@}.tgz"
mkdir -p package/bin package/include/node
printf '#!/bin/sh\\necho v${release}\\n' > package/bin/node; chmod +x package/bin/node
tar -czf "$file" package && rm -rf package
echo "$file"
`,
    { mode: 0o755 },
  );
  return { bin, npmLog };
}

/** Sources the script in a fresh bash and prints what it left: node's path and version, nodedir. */
function sourced(bin: string, cache: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const show = `source "${SCRIPT}" && echo "$(command -v node) $(node --version) nodedir=\${npm_config_nodedir:-}"`;
  const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: cache, XDG_CACHE_HOME: cache };
  return new Promise((resolve) => {
    execFile("bash", ["-c", show], { env }, (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: stdout.trim(), stderr }));
  });
}

const npmCalls = (log: string) => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : []);

describe("Node 22 as the floor", function () {
  this.timeout(60_000);
  let cache: string;
  beforeEach(() => (cache = fs.mkdtempSync(path.join(os.tmpdir(), "node-floor-cache-"))));

  it("scripts/node.sh installs Node 22 from the npm package into the cache, once, and puts it first with its headers", async () => {
    const { bin, npmLog } = standIns("20.20.2");
    const first = await sourced(bin, cache);
    assert.equal(first.status, 0, first.stderr);
    const dir = fs.readdirSync(path.join(cache, "minigame-server")).find((d) => d.startsWith(`node-${RELEASE}-`));
    assert.ok(dir, `nothing installed under ${cache}/minigame-server`);
    const home = path.join(cache, "minigame-server", dir);
    assert.equal(first.stdout, `${home}/bin/node v${RELEASE} nodedir=${home}`);
    assert.deepEqual(npmCalls(npmLog).map((c) => c.split(" ")[0]), ["pack"]);
    assert.match(npmCalls(npmLog)[0], new RegExp(`node-(linux|darwin)-(x64|arm64)@${RELEASE.replace(/\./g, "\\.")}$`));
    // No half-written copy is left beside it.
    assert.deepEqual(fs.readdirSync(path.join(cache, "minigame-server")), [dir]);

    const second = await sourced(bin, cache);
    assert.equal(second.stdout, first.stdout);
    assert.equal(npmCalls(npmLog).length, 1, "the second run fetched again instead of using the cache");
  });

  it("scripts/node.sh changes nothing where node is already 22 or newer", async () => {
    for (const version of ["22.0.0", "24.3.1"]) {
      const { bin, npmLog } = standIns(version);
      const run = await sourced(bin, cache);
      assert.equal(run.stdout, `${bin}/node v${version} nodedir=`);
      assert.deepEqual(npmCalls(npmLog), []);
      assert.deepEqual(fs.readdirSync(cache), []);
    }
  });

  it("scripts/node.sh fails naming the package when what it fetched is not that Node, and keeps nothing", async () => {
    const { bin } = standIns("20.20.2", "21.0.0");
    const run = await sourced(bin, cache);
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, new RegExp(`could not fetch or unpack node-\\w+-\\w+@${RELEASE.replace(/\./g, "\\.")}`));
    assert.deepEqual(fs.readdirSync(path.join(cache, "minigame-server")), []);
  });

  it("an entry file's message names the floor and the script, below 22 only", () => {
    assert.equal(NODE_FLOOR, 22);
    assert.equal(nodeFloorProblem("22.0.0", "/x/node"), undefined);
    assert.equal(nodeFloorProblem("23.1.0", "/x/node"), undefined);
    const message = nodeFloorProblem("20.19.5", "/usr/bin/node")!;
    assert.match(message, /needs Node\.js 22 or newer; this is Node\.js 20\.19\.5 \(\/usr\/bin\/node\)/);
    assert.match(message, /source scripts\/node\.sh/);
  });

  // The machine's own older Node, where there is one (a machine set up by scripts/node.sh has it on PATH after Node 22).
  const older = olderNode();
  (older ? it : it.skip)(`\`npm start\` on ${older?.version ?? "an older Node"} says Node 22 is needed and exits 1, with no stack trace`, async () => {
    const env = { ...process.env, PATH: `${path.dirname(older!.path)}:${process.env.PATH}`, npm_config_nodedir: undefined, PORT: "0" };
    const child = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 45_000);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    clearTimeout(timer);
    assert.equal(code, 1, output);
    assert.match(output, new RegExp(`This server needs Node\\.js 22 or newer; this is Node\\.js ${older!.version.slice(1).replace(/\./g, "\\.")}`));
    assert.doesNotMatch(output, /^\s+at /m, "a stack trace");
    assert.doesNotMatch(output, /listening on/);
  });
});

/** A `node` on PATH whose major version is below the floor, if any. */
function olderNode(): { path: string; version: string } | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "node");
    if (!fs.existsSync(candidate)) continue;
    try {
      const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim();
      if (Number(version.slice(1).split(".")[0]) < NODE_FLOOR) return { path: candidate, version };
    } catch {
      // not a runnable node
    }
  }
  return undefined;
}
