import type { Reporter, TestModule } from "vitest/node";

/** Ends a run with the plain line CI reads: "tests: N passed, N failed, N skipped". */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A file that failed outside its tests (its setup threw) left them skipped: it is a
      // failure all the same.
      const tests = [...m.children.allTests()];
      if (m.state() === "failed" && !tests.some((t) => t.result().state === "failed")) failed++;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
