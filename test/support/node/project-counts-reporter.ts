/**
 * A vitest reporter that ends the run with how many tests ran in each project (unit, worker,
 * e2e), so the last lines of `npm test` say where the total comes from. It adds lines after the
 * default reporter's summary and changes nothing else.
 */
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export interface ProjectCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** Test files that failed outside any test (an import or hook error). */
  failedFiles: number;
}

/** Counts per project name, in the order the projects first appear. */
export function countByProject(testModules: ReadonlyArray<TestModule>): Map<string, ProjectCounts> {
  const counts = new Map<string, ProjectCounts>();
  for (const testModule of testModules) {
    const name = testModule.project.name || 'default';
    const entry = counts.get(name) ?? { passed: 0, failed: 0, skipped: 0, failedFiles: 0 };
    counts.set(name, entry);
    let failedTests = 0;
    for (const test of testModule.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') entry.passed += 1;
      else if (state === 'failed') {
        entry.failed += 1;
        failedTests += 1;
      } else entry.skipped += 1;
    }
    if (testModule.state() === 'failed' && failedTests === 0) entry.failedFiles += 1;
  }
  return counts;
}

/** One line per project: `  unit    2101 passed, 3 skipped`. */
export function formatCounts(counts: Map<string, ProjectCounts>): string[] {
  const width = Math.max(0, ...[...counts.keys()].map((name) => name.length));
  const lines = ['Tests per project:'];
  for (const [name, { passed, failed, skipped, failedFiles }] of counts) {
    const parts = [`${passed} passed`];
    if (failed > 0) parts.push(`${failed} failed`);
    if (skipped > 0) parts.push(`${skipped} skipped`);
    if (failedFiles > 0) parts.push(`${failedFiles} file${failedFiles === 1 ? '' : 's'} failed to run`);
    lines.push(`  ${name.padEnd(width)}  ${parts.join(', ')}`);
  }
  return lines;
}

export default class ProjectCountsReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (testModules.length === 0) return;
    const log = (line: string) => (this.vitest ? this.vitest.logger.log(line) : console.log(line));
    for (const line of formatCounts(countByProject(testModules))) log(line);
  }
}
