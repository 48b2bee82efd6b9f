/**
 * `npm test` ends with what failed (scripts/failure-summary.mjs), read from the suites' JSON reports. The
 * reports in tests/support/reports are real ones (vitest and Playwright on a failing test each, a vitest
 * file that does not load, a passing test beside them), their absolute paths made relative.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { failureSummary, playwrightFailures, vitestFailures } from '../scripts/failure-summary.mjs';

const report = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, 'support/reports', name), 'utf8'));

test('each failed test by file and name, with its error and its own frame; passing tests and the runners’ frames left out', () => {
  const vitest = vitestFailures(report('vitest.json'));
  expect(vitest.map((f) => `${f.where} › ${f.test}`)).toEqual(['bench/tmp-pw/b.test.ts › group fails', 'bench/tmp-pw/c.test.ts › (the file itself)']);
  expect(vitest[0]?.error).toBe('AssertionError: expected 1 to be 2 // Object.is equality\n    at bench/tmp-pw/b.test.ts:2:59');
  expect(vitest[1]?.error).toBe('cannot load');
  const playwright = playwrightFailures(report('playwright.json'));
  expect(playwright).toEqual([
    { where: 'a.spec.ts:2', test: '[p1] group › fails', error: 'Error: expect(received).toBe(expected) // Object.is equality\nExpected: 2\nReceived: 1' },
  ]);
});

test('the summary of the steps that failed; a missing report or one with no failed test says the failure is above', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'gnl-failure-summary-'));
  writeFileSync(path.join(folder, 'vitest.json'), JSON.stringify(report('vitest.json')));
  expect(failureSummary(folder, ['vitest'])).toEqual([
    'gnl test: vitest: 2 failed',
    '  ✗ bench/tmp-pw/b.test.ts › group fails',
    '      AssertionError: expected 1 to be 2 // Object.is equality',
    '          at bench/tmp-pw/b.test.ts:2:59',
    '  ✗ bench/tmp-pw/c.test.ts › (the file itself)',
    '      cannot load',
  ]);
  const [missing] = failureSummary(folder, ['playwright']);
  expect(missing).toMatch(/^gnl test: playwright failed; its report .*playwright\.json could not be read \(no report was written\): the failure is above$/);
  writeFileSync(path.join(folder, 'playwright.json'), JSON.stringify({ suites: [], errors: [] }));
  expect(failureSummary(folder, ['playwright'])).toEqual([
    'gnl test: playwright failed with no failed test in its report (a crash, a timeout or a setup error): the failure is above',
  ]);
  writeFileSync(path.join(folder, 'playwright.json'), '{ cut off');
  expect(failureSummary(folder, ['playwright'])[0]).toMatch(/could not be read \(.*JSON/);
});

test('at most ten failures are shown; the rest are counted, with the report that holds them', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'gnl-failure-summary-'));
  const base = report('vitest.json');
  const failedFile = base.testResults.find((file: { name: string }) => file.name.endsWith('b.test.ts'));
  const many = { ...base, testResults: Array.from({ length: 12 }, (_, i) => ({ ...failedFile, name: `bench/tmp-pw/b${i}.test.ts` })) };
  writeFileSync(path.join(folder, 'vitest.json'), JSON.stringify(many));
  const lines = failureSummary(folder, ['vitest']);
  expect(lines[0]).toBe('gnl test: vitest: 12 failed');
  expect(lines.filter((line) => line.startsWith('  ✗ '))).toHaveLength(10);
  expect(lines.at(-1)).toBe(`  … and 2 more (${path.join(folder, 'vitest.json')})`);
});
