/**
 * What failed, from the suites' JSON reports (test-results/vitest.json, playwright.json), printed last by
 * `npm test`: a CI log is often read from its end only, and by then the failure scrolled by thousands of
 * lines earlier (a red CI whose kept tail showed only Playwright passing, stop 52). Each failure names its
 * file and test and the first lines of its error; a report that is missing or unreadable is said so.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

/** Lines of each error kept: enough for the assertion and where it was. */
const ERROR_LINES = 6;
/** Failures shown per suite: the first ones (a kept tail of a log holds about this many); the rest counted. */
const SHOWN = 10;

/** The failed tests of a vitest JSON report: `{ where, test, error }` each, files that failed to load included. */
export function vitestFailures(report, root = '') {
  const failures = [];
  for (const file of report.testResults ?? []) {
    const where = root ? path.relative(root, file.name) : file.name;
    const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) failures.push({ where, test: test.fullName, error: firstLines((test.failureMessages ?? []).join('\n')) });
    // A file that failed with no failed test in it: it did not load, or a hook threw.
    if (file.status === 'failed' && failed.length === 0) failures.push({ where, test: '(the file itself)', error: firstLines(file.message ?? '') });
  }
  return failures;
}

/** The failed tests of a Playwright JSON report (unexpected: failed, timed out or interrupted on every try). */
export function playwrightFailures(report) {
  const failures = [];
  const visit = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'unexpected') continue;
        const last = test.results?.at(-1);
        const error = last?.error?.message ?? last?.errors?.[0]?.message ?? `status ${last?.status ?? 'unknown'}`;
        failures.push({
          where: `${spec.file ?? suite.file}:${spec.line ?? '?'}`,
          test: `[${test.projectName}] ${[...titles, spec.title].join(' › ')}`,
          error: firstLines(error),
        });
      }
    }
    for (const child of suite.suites ?? []) visit(child, child.title && child.title !== child.file ? [...titles, child.title] : titles);
  };
  for (const suite of report.suites ?? []) visit(suite, []);
  for (const error of report.errors ?? [])
    failures.push({ where: 'playwright', test: '(outside any test)', error: firstLines(error.message ?? String(error)) });
  return failures;
}

/** The summary's lines for the reports in `folder` of the steps that failed (`failed`: 'vitest', 'playwright'). */
export function failureSummary(folder, failed, root = '') {
  const lines = [];
  for (const step of failed) {
    const file = path.join(folder, `${step}.json`);
    let failures;
    try {
      if (!existsSync(file)) throw new Error('no report was written');
      const report = JSON.parse(readFileSync(file, 'utf8'));
      failures = step === 'vitest' ? vitestFailures(report, root) : playwrightFailures(report);
    } catch (error) {
      lines.push(
        `gnl test: ${step} failed; its report ${file} could not be read (${error instanceof Error ? error.message : String(error)}): the failure is above`,
      );
      continue;
    }
    if (failures.length === 0) {
      lines.push(`gnl test: ${step} failed with no failed test in its report (a crash, a timeout or a setup error): the failure is above`);
      continue;
    }
    lines.push(`gnl test: ${step}: ${failures.length} failed`);
    for (const failure of failures.slice(0, SHOWN)) {
      lines.push(`  ✗ ${failure.where} › ${failure.test}`);
      for (const line of failure.error.split('\n')) lines.push(`      ${line}`);
    }
    if (failures.length > SHOWN) lines.push(`  … and ${failures.length - SHOWN} more (${file})`);
  }
  return lines;
}

function firstLines(text) {
  // Colour codes out: the summary is read in logs that do not render them.
  const plain = stripVTControlCharacters(text).trim();
  // The runners' own frames say nothing of the failure: only the test's own are kept.
  const lines = plain.split('\n').filter((line) => line.trim() !== '' && !/^\s*at .*(node_modules|node:internal|<anonymous>)/.test(line));
  const kept = lines.slice(0, ERROR_LINES).map((line) => (line.length > 240 ? `${line.slice(0, 240)}…` : line));
  return lines.length > ERROR_LINES ? [...kept, `(${lines.length - ERROR_LINES} more lines)`].join('\n') : kept.join('\n');
}
