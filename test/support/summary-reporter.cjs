// Mocha's spec reporter, then which backends the run exercised and which it skipped (with why),
// then the slowest test files (where CI's minutes go), then one closing line that CI tools read: "N passed, N failed[, N skipped]". That line stays last.
const Mocha = require("mocha");
const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;
const fs = require("node:fs");
const path = require("node:path");

const SLOWEST_FILES = 10;
/** Every file's time, slowest first, for whoever wants more than the top ten (gitignored). */
const TIMINGS_FILE = "test-timings.txt";

/** Declared by the suites through test/support/backend-report.ts. */
const REGISTRY = Symbol.for("minigame-login.test-backends");

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const ran = [];
    const pending = [];
    runner.on(EVENT_TEST_PASS, (test) => ran.push(test.fullTitle()));
    runner.on(EVENT_TEST_FAIL, (test) => {
      if (test.type === "test") ran.push(test.fullTitle());
    });
    runner.on(EVENT_TEST_PENDING, (test) => pending.push(test.fullTitle()));
    // A file's top-level suites, from their start to their end (hooks included).
    let fileMs = new Map();
    const started = new Map();
    runner.on(EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent && suite.parent.root) started.set(suite, Date.now());
    });
    runner.on(EVENT_SUITE_END, (suite) => {
      const at = started.get(suite);
      if (at !== undefined) fileMs.set(suite.file, (fileMs.get(suite.file) || 0) + Date.now() - at);
    });
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats || {};
      const fromWorkers = readRunFolder();
      process.stdout.write(`\n${backendLines(ran, pending, fromWorkers.backends).join("\n")}\n`);
      // Under --parallel the suite events arrive replayed, all at once: the workers' own times count.
      if (fromWorkers.fileMs.size > 0) fileMs = fromWorkers.fileMs;
      writeTimings(fileMs);
      const slowest = slowestLines(fileMs);
      if (slowest.length) process.stdout.write(`\n${slowest.join("\n")}\n`);
      const skipped = s.pending ? `, ${s.pending} skipped` : "";
      process.stdout.write(`\n${s.passes || 0} passed, ${s.failures || 0} failed${skipped}\n`);
    });
  }
}

/** What mocha --parallel's workers wrote to the run's folder (run-context.cjs), which is then removed. */
function readRunFolder() {
  const dir = process.env.MGL_TEST_RUN_DIR;
  const found = { backends: [], fileMs: new Map() };
  if (!dir || process.env.MGL_TEST_RUN_PID !== String(process.pid)) return found;
  const lines = (name) => {
    try {
      return fs.readFileSync(path.join(dir, name), "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
    } catch {
      return [];
    }
  };
  for (const b of lines("backends.jsonl")) found.backends.push({ name: b.name, titles: new RegExp(b.titles, b.flags), skipReason: b.skipReason });
  for (const t of lines("timings.jsonl")) found.fileMs.set(t.file, (found.fileMs.get(t.file) || 0) + t.ms);
  fs.rmSync(dir, { recursive: true, force: true });
  return found;
}

function backendLines(ran, pending, fromWorkers) {
  const registry = new Map(globalThis[REGISTRY] || []);
  for (const backend of fromWorkers) if (!registry.has(backend.name)) registry.set(backend.name, backend);
  const declared = [...registry.values()];
  if (declared.length === 0) return ["backends: none declared by the suites that ran"];
  const exercised = [];
  const skipped = [];
  for (const backend of declared) {
    const count = ran.filter((title) => backend.titles.test(title)).length;
    const notRun = pending.filter((title) => backend.titles.test(title)).length;
    const tests = (n) => `${n} test${n === 1 ? "" : "s"}`;
    if (backend.skipReason) skipped.push(`  ${backend.name}: ${backend.skipReason}${notRun ? ` (${tests(notRun)} skipped)` : ""}`);
    else if (count > 0) exercised.push(`  ${backend.name}: ${tests(count)}`);
    else skipped.push(`  ${backend.name}: available, but no test that uses it ran${notRun ? ` (${tests(notRun)} skipped)` : ""}`);
  }
  return [
    "backends exercised:",
    ...(exercised.length ? exercised : ["  none"]),
    "backends skipped:",
    ...(skipped.length ? skipped : ["  none"]),
  ];
}

function writeTimings(fileMs) {
  if (fileMs.size < 2) return;
  const rows = [...fileMs].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  const lines = rows.map(([file, ms]) => `${(ms / 1000).toFixed(1).padStart(7)} s  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${path.relative(process.cwd(), file)}`);
  try {
    fs.writeFileSync(TIMINGS_FILE, `${lines.join("\n")}\n`);
  } catch {
    // A read-only checkout still gets its summary.
  }
}

function slowestLines(fileMs) {
  const rows = [...fileMs].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_FILES);
  if (rows.length < 2) return [];
  return [`slowest files (of ${fileMs.size}):`, ...rows.map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${path.relative(process.cwd(), file)}`)];
}

module.exports = SummaryReporter;
