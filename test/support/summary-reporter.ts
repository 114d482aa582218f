// Prints one plain closing line, `N passed, N failed` (with `, N skipped`), after vitest's own
// summary, so that a CI reader that does not know vitest's output can still count the run.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else if (state === 'skipped') skipped += 1;
      }
      // A file that failed to load has no tests to count, but it is a failure all the same.
      if (module.state() === 'failed' && module.children.size === 0) failed += 1;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
  }
}
