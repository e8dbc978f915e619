/**
 * The reporter that ends `npm test` with one line per project: it counts each test once, under
 * its own project, by its final state, and names a file that failed outside any test.
 */
import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { countByProject, formatCounts } from '../support/node/project-counts-reporter';

type State = 'passed' | 'failed' | 'skipped' | 'pending';

/** The parts of a TestModule the reporter reads. */
function testModule(project: string, states: State[], moduleState: 'passed' | 'failed' = states.includes('failed') ? 'failed' : 'passed'): TestModule {
  return {
    project: { name: project },
    state: () => moduleState,
    children: { allTests: () => states.map((state) => ({ result: () => ({ state }) }))[Symbol.iterator]() },
  } as unknown as TestModule;
}

describe('project counts reporter', () => {
  it('counts each test under its own project, in the order projects appear', () => {
    const counts = countByProject([
      testModule('unit', ['passed', 'passed', 'skipped']),
      testModule('worker', ['passed', 'failed']),
      testModule('unit', ['passed', 'pending']),
      testModule('e2e', ['passed']),
    ]);
    expect([...counts.keys()]).toEqual(['unit', 'worker', 'e2e']);
    expect(counts.get('unit')).toEqual({ passed: 3, failed: 0, skipped: 2, failedFiles: 0 });
    expect(counts.get('worker')).toEqual({ passed: 1, failed: 1, skipped: 0, failedFiles: 0 });
    expect(formatCounts(counts)).toEqual([
      'Tests per project:',
      '  unit    3 passed, 2 skipped',
      '  worker  1 passed, 1 failed',
      '  e2e     1 passed',
    ]);
  });

  it('names a file that failed without a failed test (an import error), not as a passed project', () => {
    const counts = countByProject([testModule('e2e', [], 'failed'), testModule('e2e', ['passed'])]);
    expect(counts.get('e2e')).toEqual({ passed: 1, failed: 0, skipped: 0, failedFiles: 1 });
    expect(formatCounts(counts)[1]).toBe('  e2e  1 passed, 1 file failed to run');
  });
});
