import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** Writes this package's pass/fail counts to .test-results/console.json, which scripts/test-summary.mjs sums. */
export default class CountReporter implements Reporter {
  private started = Date.now();

  onTestRunStart() {
    this.started = Date.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    let passed = 0;
    let failed = 0;
    let failedSuites = 0;
    for (const m of modules) {
      if (!m.ok() && [...m.children.allTests()].every((t) => t.result().state !== 'failed'))
        failedSuites += 1;
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
      }
    }
    const dir = path.join(import.meta.dirname, '..', '..', '..', '.test-results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'console.json'),
      JSON.stringify({
        passed,
        failed,
        failedSuites,
        suites: modules.length,
        seconds: (Date.now() - this.started) / 1000,
      }),
    );
  }
}
