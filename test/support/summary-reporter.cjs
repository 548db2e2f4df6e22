// Mocha's spec reporter, then which backends the run exercised and which it skipped (with why),
// then one closing line that CI tools read: "N passed, N failed[, N skipped]". That line stays last.
const Mocha = require("mocha");
const { EVENT_RUN_END, EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING } = Mocha.Runner.constants;

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
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats || {};
      process.stdout.write(`\n${backendLines(ran, pending).join("\n")}\n`);
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

module.exports = SummaryReporter;
