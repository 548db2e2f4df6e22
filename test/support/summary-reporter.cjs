// Mocha's spec reporter plus one closing line that CI tools read: "N passed, N failed[, N skipped]".
const Mocha = require("mocha");
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const s = runner.stats || {};
      const skipped = s.pending ? `, ${s.pending} skipped` : "";
      process.stdout.write(`\n${s.passes || 0} passed, ${s.failures || 0} failed${skipped}\n`);
    });
  }
}
module.exports = SummaryReporter;
