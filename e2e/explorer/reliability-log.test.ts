import { describe, expect, it } from 'vitest';
import { appendRow, type LogRow, parseRows } from './reliability-log';

const LOG = `# Reliability log

Intro.

| date (UTC) | seed | journal | schedules | kills | invariant checks | violations | duration | commit |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| 2026-11-30T00:24:49Z | 1305353743 | postgres | 150       | 252   | 2639             | 0          | 362 s    | 9e60bed |

## Notes

A note that stays.
`;

const row: LogRow = {
  date: '2026-12-01T07:00:00Z',
  seed: 7,
  journal: 'postgres',
  schedules: 2000,
  kills: 3300,
  checks: 35000,
  violations: 0,
  seconds: 900,
  commit: 'abc1234',
};

describe('reliability log', () => {
  it('adds the row at the end of the table and writes the totals over every row below it, keeping the notes', () => {
    const once = appendRow(LOG, row);
    expect(parseRows(once)).toHaveLength(2);
    expect(once).toContain('| 2026-12-01T07:00:00Z | 7          | postgres | 2000      | 3300  | 35000            | 0          | 900 s    | abc1234 |');
    // Aligned as the formatter writes it: every row of the table as long as its header.
    const table = once.split('\n').filter((line) => line.startsWith('|'));
    expect(new Set(table.map((line) => line.length)).size).toBe(1);
    expect(table[1]).toMatch(/^\| -+ \| -+ \|/);
    expect(once).toContain('Total: 2 runs, 2 150 schedules, 3 552 SIGKILLs, 37 639 invariant checks, 0 violations.');
    expect(once).toContain('## Notes\n\nA note that stays.');
    expect(once.indexOf('Total:')).toBeLessThan(once.indexOf('## Notes'));
  });

  it('rewrites the totals rather than adding a second block, and counts violations', () => {
    const twice = appendRow(appendRow(LOG, row), { ...row, seed: 8, violations: 2 });
    expect(twice.match(/Total:/g)).toHaveLength(1);
    expect(twice).toContain('Total: 3 runs, 4 150 schedules, 6 852 SIGKILLs, 72 639 invariant checks, 2 violations.');
    expect(parseRows(twice).map((r) => r.seed)).toEqual([1305353743, 7, 8]);
  });

  it('refuses a log without its table', () => {
    expect(() => appendRow('# Reliability log\n', row)).toThrow(/no table header/);
  });

  it('reads a row of the widened model, its fault families beside the journal', () => {
    const widened = appendRow(LOG, { ...row, journal: 'pglite/kills,provider,ids,operators' });
    expect(parseRows(widened).map((r) => r.journal)).toEqual(['postgres', 'pglite/kills,provider,ids,operators']);
  });
});
