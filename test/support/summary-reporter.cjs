// Mocha's spec reporter, then which backends the run exercised and which it skipped (with why),
// then the slowest test files (where CI's minutes go), then one closing line that CI tools read: "N passed, N failed[, N skipped]". That line stays last.
const Mocha = require("mocha");
const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_SUITE_BEGIN, EVENT_SUITE_END } = Mocha.Runner.constants;
const path = require("node:path");

const SLOWEST_FILES = 15;

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
    const fileMs = new Map();
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
      process.stdout.write(`\n${backendLines(ran, pending).join("\n")}\n`);
      const slowest = slowestLines(fileMs);
      if (slowest.length) process.stdout.write(`\n${slowest.join("\n")}\n`);
      const skipped = s.pending ? `, ${s.pending} skipped` : "";
      process.stdout.write(`\n${s.passes || 0} passed, ${s.failures || 0} failed${skipped}\n`);
    });
  }
}

function backendLines(ran, pending) {
  const declared = [...(globalThis[REGISTRY] || new Map()).values()];
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

function slowestLines(fileMs) {
  const rows = [...fileMs].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_FILES);
  if (rows.length < 2) return [];
  return [`slowest files (of ${fileMs.size}):`, ...rows.map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${path.relative(process.cwd(), file)}`)];
}

module.exports = SummaryReporter;
