/**
 * docs/reliability-log.md: one table row per long run of the explorer, and below the table the totals
 * over every row, recomputed from the rows each time a run is logged (never typed by hand).
 */
export interface LogRow {
  date: string;
  seed: number;
  journal: string;
  schedules: number;
  kills: number;
  checks: number;
  violations: number;
  seconds: number;
  commit: string;
}

const TOTALS_START = '<!-- totals: written by npm run test:chaos -- --log -->';
const TOTALS_END = '<!-- /totals -->';

// The journal cell: `postgres` (issue 7's model: kills only), or `postgres/<fault families>` (issue 11's widened model).
const ROW =
  /^\|\s*(\d{4}-\d\d-\d\dT[\d:]+Z)\s*\|\s*(\d+)\s*\|\s*([\w/,+-]+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*(\d+) s\s*\|\s*(\w+)\s*\|$/;

export function parseRows(text: string): LogRow[] {
  return text.split('\n').flatMap((line) => {
    const m = ROW.exec(line.trim());
    if (!m) return [];
    const [, date, seed, journal, schedules, kills, checks, violations, seconds, commit] = m as unknown as string[];
    return [
      {
        date: date as string,
        seed: Number(seed),
        journal: journal as string,
        schedules: Number(schedules),
        kills: Number(kills),
        checks: Number(checks),
        violations: Number(violations),
        seconds: Number(seconds),
        commit: commit as string,
      },
    ];
  });
}

export function formatRow(row: LogRow): string {
  return `| ${row.date} | ${row.seed} | ${row.journal} | ${row.schedules} | ${row.kills} | ${row.checks} | ${row.violations} | ${row.seconds} s | ${row.commit} |`;
}

const thousands = (n: number) => n.toLocaleString('en-US').replaceAll(',', ' ');

export function totalsLine(rows: readonly LogRow[]): string {
  const sum = (key: 'schedules' | 'kills' | 'checks' | 'violations') => rows.reduce((total, row) => total + row[key], 0);
  return `Total: ${rows.length} runs, ${thousands(sum('schedules'))} schedules, ${thousands(sum('kills'))} SIGKILLs, ${thousands(sum('checks'))} invariant checks, ${thousands(sum('violations'))} violations.`;
}

/**
 * The log with `row` added as the table's last row and the totals block rewritten. The table is the run
 * of lines that starts with its header; the totals block sits right after it.
 */
export function appendRow(text: string, row: LogRow): string {
  const withoutTotals = text.replace(new RegExp(`\\n*${escapeRegExp(TOTALS_START)}[\\s\\S]*?${escapeRegExp(TOTALS_END)}\\n*`), '\n\n');
  const lines = withoutTotals.replace(/\n+$/, '').split('\n');
  const header = lines.findIndex((line) => line.startsWith('| date'));
  if (header < 0) throw new Error('docs/reliability-log.md has no table header ("| date …")');
  let end = header + 1;
  while (end < lines.length && (lines[end] as string).startsWith('|')) end += 1;
  lines.splice(end, 0, formatRow(row));
  const rows = parseRows(lines.join('\n'));
  lines.splice(header, end + 1 - header, ...alignTable(lines.slice(header, end + 1)));
  lines.splice(end + 1, 0, '', TOTALS_START, totalsLine(rows), TOTALS_END);
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}

/** The table's cells padded to their column's width, as the repository's formatter (biome) writes Markdown tables. */
function alignTable(table: readonly string[]): string[] {
  const cells = table.map((line) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((cell) => cell.trim()),
  );
  const widths = (cells[0] ?? []).map((_, column) => Math.max(3, ...cells.filter((_, i) => i !== 1).map((row) => (row[column] ?? '').length)));
  return cells.map((row, i) => `| ${widths.map((width, column) => (i === 1 ? '-'.repeat(width) : (row[column] ?? '').padEnd(width))).join(' | ')} |`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
