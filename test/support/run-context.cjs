// Loaded by mocha (.mocharc's require) in the main process and, under `mocha --parallel`, in each
// worker. The main process makes a folder for the run; workers (which inherit its environment) write
// there what the main process's reporter cannot see otherwise: how long each file took (a worker runs
// a file as a root suite of its own, so the root hooks below frame exactly one file) and which
// backends the suites declared (test/support/backend-report.ts). summary-reporter.cjs reads and removes it.
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const RUN_DIR = "MGL_TEST_RUN_DIR";
const RUN_PID = "MGL_TEST_RUN_PID";

/** A worker of this run: forked by the process that made the folder (a mocha a test spawns is a run of its own). */
const inWorker = process.env.MOCHA_WORKER_ID !== undefined && process.env[RUN_PID] === String(process.ppid) && Boolean(process.env[RUN_DIR]);

if (!inWorker) {
  process.env[RUN_PID] = String(process.pid);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mgl-test-run-"));
  process.env[RUN_DIR] = dir;
  // The reporter removes it after reading it; this covers a run with another reporter.
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
}

/**
 * Before the first test (in the main process, once, whatever the jobs): the sources child processes
 * run compiled (compiled-source.ts), so no test's timeout pays for compiling them.
 */
exports.mochaGlobalSetup = function compileForChildProcesses() {
  require("./compiled-source.ts").compiledEntry("src/server/index.ts");
};

let fileStarted = 0;

exports.mochaHooks = {
  beforeAll() {
    fileStarted = Date.now();
  },
  afterAll() {
    if (!inWorker) return;
    const root = this.test && this.test.parent;
    const file = root && (root.suites.find((s) => s.file) || root.tests.find((t) => t.file) || {}).file;
    if (!file) return;
    fs.appendFileSync(path.join(process.env[RUN_DIR], "timings.jsonl"), `${JSON.stringify({ file, ms: Date.now() - fileStarted })}\n`);
  },
};
