// Appends this package's pass/fail counts to .test-results/, which scripts/test-summary.mjs sums.
const fs = require('node:fs');
const path = require('node:path');

class CountReporter {
  constructor(_globalConfig, options) {
    this.name = options.name;
  }
  onRunComplete(_contexts, results) {
    const dir = path.join(__dirname, '..', '.test-results');
    fs.mkdirSync(dir, { recursive: true });
    const failedSuites = results.numFailedTestSuites + (results.numRuntimeErrorTestSuites || 0);
    fs.writeFileSync(
      path.join(dir, `${this.name}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        failedSuites,
        suites: results.numTotalTestSuites,
        seconds: (Date.now() - results.startTime) / 1000,
      }),
    );
  }
}
module.exports = CountReporter;
