/**
 * `node scripts/suite-profile.mjs [folder]`: where the last `npm test` spent its time, from the JSON
 * reports vitest and Playwright write on every run (test-results/vitest.json, test-results/playwright.json).
 * Per file: wall time (first start to last end) and test count, slowest first; per half: the wall time,
 * the sum of the files' times and the tests counted, passed, failed and skipped. The figures in
 * docs/testing.md come from here. `--top N` shows N files per half (20 by default); the quick suite's
 * reports are in test-results/quick.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 20;
const folder = args.find((arg, index) => !arg.startsWith('--') && index !== topIndex + 1) ?? 'test-results';
// File names relative to the checkout the reports came from: the parent of its test-results folder
// (test-results/quick holds the quick suite's).
const resolved = path.resolve(folder);
const results = resolved.split(path.sep).lastIndexOf('test-results');
const root = results > 0 ? resolved.split(path.sep).slice(0, results).join(path.sep) || path.sep : path.dirname(resolved);
const relative = (file) => path.relative(root, file);

/** vitest's JSON report: one entry per file, with its start and end, and one result per test. */
function vitestFiles(report) {
  return report.testResults.map((file) => {
    const counts = count(file.assertionResults.map((test) => test.status));
    return { name: relative(file.name), start: file.startTime, end: file.endTime, ...counts };
  });
}

/** Playwright's JSON report: suites per file, nested; every test has one result per attempt. */
function playwrightFiles(report) {
  const files = new Map();
  const visit = (suite, file) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const entry = files.get(file) ?? { name: `e2e/studio/${file}`, start: Infinity, end: 0, statuses: [] };
        for (const result of test.results ?? []) {
          const start = Date.parse(result.startTime);
          entry.start = Math.min(entry.start, start);
          entry.end = Math.max(entry.end, start + result.duration);
        }
        entry.statuses.push(test.status === 'expected' ? 'passed' : test.status === 'skipped' ? 'skipped' : 'failed');
        files.set(file, entry);
      }
    }
    for (const child of suite.suites ?? []) visit(child, file);
  };
  for (const suite of report.suites ?? []) visit(suite, suite.file ?? suite.title);
  return [...files.values()].map(({ statuses, ...entry }) => ({ ...entry, ...count(statuses) }));
}

function count(statuses) {
  const tally = { tests: statuses.length, passed: 0, failed: 0, skipped: 0 };
  for (const status of statuses) {
    if (status === 'passed') tally.passed++;
    else if (status === 'skipped' || status === 'pending' || status === 'todo') tally.skipped++;
    else tally.failed++;
  }
  return tally;
}

function show(title, files) {
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);
  const wall = Math.max(...files.map((file) => file.end)) - Math.min(...files.map((file) => file.start));
  const sum = files.reduce((total, file) => total + (file.end - file.start), 0);
  const totals = files.reduce(
    (all, file) => ({ tests: all.tests + file.tests, passed: all.passed + file.passed, failed: all.failed + file.failed, skipped: all.skipped + file.skipped }),
    { tests: 0, passed: 0, failed: 0, skipped: 0 },
  );
  console.log(`\n${title}: ${files.length} files, ${totals.tests} tests (${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped)`);
  console.log(`  wall ${seconds(wall).trim()} s, files add up to ${seconds(sum).trim()} s`);
  for (const file of [...files].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, top)) {
    console.log(`  ${seconds(file.end - file.start)} s  ${String(file.tests).padStart(4)} tests  ${file.name}`);
  }
}

let found = 0;
for (const [name, parse, title] of [
  ['vitest.json', vitestFiles, 'vitest'],
  ['playwright.json', playwrightFiles, 'Playwright'],
]) {
  const file = path.join(folder, name);
  if (!existsSync(file)) {
    console.log(`\n${title}: no report at ${file} (run npm test first)`);
    continue;
  }
  found++;
  show(title, parse(JSON.parse(readFileSync(file, 'utf8'))));
}
process.exit(found > 0 ? 0 : 1);
