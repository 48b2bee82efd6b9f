/** The run's results as JSON and Markdown (bench/results/<timestamp>.json and .md). */
import { writeFileSync } from 'node:fs';
import type { FigureResult } from './report-types';

export interface Machine {
  at: string;
  node: string;
  cpus: string;
  cores: number;
  memoryGb: number;
  postgres: string;
  loadAverage: { start: number[]; end: number[] };
  mode: 'full' | 'quick';
  command: string;
  durationS: number;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isNaN(value) ? '—' : String(value);
  return String(value).replaceAll('|', '\\|');
}

export function markdownTable(rows: FigureResult['rows']): string {
  const first = rows[0];
  if (!first) return '(no rows)';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return [
    `| ${columns.join(' | ')} |`,
    `| ${columns.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${columns.map((c) => cell(r[c])).join(' | ')} |`),
  ].join('\n');
}

export function goalsTable(figures: FigureResult[]): string {
  const goals = figures.flatMap((f) => (f.goals ?? []).map((g) => ({ figure: f.id, ...g })));
  return [
    '| figure | goal | measured | met |',
    '| --- | --- | --- | --- |',
    ...goals.map(
      (g) => `| ${g.figure} | ${cell(g.goal)} | ${cell(g.measured)}${g.note ? ` (${cell(g.note)})` : ''} | ${g.met === null ? 'n/a' : g.met ? 'yes' : 'no'} |`,
    ),
  ].join('\n');
}

export function markdown(machine: Machine, figures: FigureResult[], charts: string[]): string {
  return [
    `# GNL benchmark, ${machine.at}`,
    '',
    `\`${machine.command}\` (${machine.mode}), ${machine.durationS} s. ${machine.cores} × ${machine.cpus}, ${machine.memoryGb} GB, Node ${machine.node}, ${machine.postgres}. Load average at start ${machine.loadAverage.start.join(' / ')}, at the end ${machine.loadAverage.end.join(' / ')} (a shared machine: other work ran meanwhile).`,
    '',
    'Times in ms unless a column says otherwise; each figure is also given as a ratio to a floor measured in the same run.',
    '',
    '## Goals',
    '',
    goalsTable(figures),
    '',
    ...figures.flatMap((f) => [`## ${f.id}. ${f.title}`, '', markdownTable(f.rows), '', ...f.notes.map((n) => `- ${n}`), '']),
    ...(charts.length ? ['## Charts', '', ...charts.map((c) => `![chart](${c})`), ''] : []),
  ].join('\n');
}

export function writeReport(base: string, machine: Machine, figures: FigureResult[], charts: string[]): { json: string; md: string } {
  const json = `${base}.json`;
  const md = `${base}.md`;
  writeFileSync(json, `${JSON.stringify({ machine, figures }, null, 2)}\n`);
  writeFileSync(md, markdown(machine, figures, charts));
  return { json, md };
}
