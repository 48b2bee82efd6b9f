/** The peers table: one row per system, written as JSON and Markdown to bench/results/peers-<timestamp>. */
import { type StepRow, stepRowsMarkdown } from './workflow-steps';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { round, summary } from '../stats';
import { CHECKPOINTS } from './agent';
import type { CrashFinding } from './crash';
import type { Measured } from './measure';
import type { GoalCheck } from '../report-types';

export interface SystemRow {
  system: string;
  measured: boolean;
  reason?: string;
  runMedianMs?: number;
  overheadPerCheckpointMs?: { median: number; p90: number };
  statementsPerCheckpoint?: number;
  statementsPerRun?: number;
  answerMedianMs?: number;
  statementsPerAnswer?: number;
  crash: CrashFinding;
}

const median = (xs: number[]) => summary(xs).median;

export function measuredRow(m: Measured, plainMedian: number, crash: CrashFinding): SystemRow {
  const overhead = summary(m.runMs.map((ms) => (ms - plainMedian) / CHECKPOINTS));
  return {
    system: m.system.name,
    measured: true,
    runMedianMs: round(median(m.runMs), 2),
    overheadPerCheckpointMs: { median: overhead.median, p90: overhead.p90 },
    statementsPerCheckpoint: round(median(m.runStatements) / CHECKPOINTS, 2),
    statementsPerRun: median(m.runStatements),
    answerMedianMs: round(median(m.answerMs), 2),
    statementsPerAnswer: median(m.answerStatements),
    crash,
  };
}

/**
 * Issue 17's goals that this run measures, GNL's figure beside the goal and the peers' (the others, resume
 * and throughput and the append's cost, are `npm run bench`'s figures 2, 3 and 6). Met or not, as measured.
 */
export function peersGoals(rows: SystemRow[]): GoalCheck[] {
  const gnl = rows.find((r) => r.system === 'GNL' && r.measured);
  const followed = rows.find((r) => r.system === 'GNL, followed live' && r.measured);
  const peers = rows.filter((r) => !r.system.startsWith('GNL') && r.measured);
  if (!gnl?.overheadPerCheckpointMs || gnl.statementsPerCheckpoint === undefined || gnl.answerMedianMs === undefined) return [];
  const named = (pick: (r: SystemRow) => number | undefined, unit: string) =>
    peers.map((r) => `${r.system} ${pick(r)}${unit}`).join(', ') || 'no peer measured';
  const bestOverhead = Math.min(...peers.map((r) => r.overheadPerCheckpointMs?.median ?? Number.POSITIVE_INFINITY));
  const fastestAnswer = Math.min(...peers.map((r) => r.answerMedianMs ?? Number.POSITIVE_INFINITY));
  const overhead = gnl.overheadPerCheckpointMs.median;
  const bound = Math.min(0.5, bestOverhead / 4);
  return [
    {
      goal: 'overhead per checkpoint ≤ 0.5 ms and ≤ ¼ of the best peer’s',
      measured: `GNL ${overhead} ms (bound ${round(bound, 3)} ms; ${named((r) => r.overheadPerCheckpointMs?.median, ' ms')})`,
      met: overhead <= bound,
    },
    {
      goal: 'statements per checkpoint ≤ 1.1 with nobody following the run',
      measured: `GNL ${gnl.statementsPerCheckpoint} (${named((r) => r.statementsPerCheckpoint, '')})`,
      met: gnl.statementsPerCheckpoint <= 1.1,
    },
    ...(followed?.statementsPerCheckpoint !== undefined
      ? [
          {
            goal: 'statements per checkpoint ≤ 1.6 while the run is followed live (the Studio’s run page)',
            measured: `GNL ${followed.statementsPerCheckpoint} (the writer’s statements, its NOTIFYs among them)`,
            met: followed.statementsPerCheckpoint <= 1.6,
          },
        ]
      : []),
    {
      goal: 'a completed run’s answer ≤ the fastest peer’s',
      measured: `GNL ${gnl.answerMedianMs} ms (${named((r) => r.answerMedianMs, ' ms')})`,
      met: Number.isFinite(fastestAnswer) ? gnl.answerMedianMs <= fastestAnswer : null,
    },
  ];
}

export function goalsMarkdown(goals: GoalCheck[]): string {
  if (goals.length === 0) return 'Goals: GNL was not measured.\n';
  const lines = ['| goal (issue 17) | measured in this run | met |', '| --- | --- | --- |'];
  for (const g of goals) lines.push(`| ${g.goal} | ${g.measured} | ${g.met === null ? 'n/a' : g.met ? 'yes' : 'no'} |`);
  return `${lines.join('\n')}\n`;
}

export function markdown(rows: SystemRow[], meta: { runs: number; plainMedianMs: number; command: string }): string {
  const cell = (row: SystemRow, value: string | undefined) => (row.measured ? (value ?? '') : `not measured: ${row.reason}`);
  const lines = [
    `Command: \`${meta.command}\`; ${meta.runs} timed runs per system, interleaved with the plain agent (plain generateText, no durability: median ${meta.plainMedianMs} ms per run). ${CHECKPOINTS} checkpoints per run (21 model calls, 20 tool calls). Machine: ${os.cpus().length} cores, Node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} at the end.`,
    '',
    '| system | overhead / checkpoint (median, p90) | statements / checkpoint (on the wire) | statements / run | run (median) | answer for a completed run (median) | statements / answer | SIGKILL inside a side effect, after it acted |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    if (!r.measured) {
      lines.push(`| ${r.system} | not measured: ${r.reason} | | | | | | ${r.crash.summary} |`);
      continue;
    }
    lines.push(
      `| ${r.system} | ${cell(r, `${r.overheadPerCheckpointMs?.median} ms (p90 ${r.overheadPerCheckpointMs?.p90})`)} | ${r.statementsPerCheckpoint} | ${r.statementsPerRun} | ${r.runMedianMs} ms | ${r.answerMedianMs} ms | ${r.statementsPerAnswer} | ${r.crash.verdict} (count ${r.crash.count ?? '?'}) |`,
    );
  }
  lines.push('', 'SIGKILL row, in full:', '');
  for (const r of rows) lines.push(`- ${r.system}: ${r.crash.summary}`);
  lines.push('', goalsMarkdown(peersGoals(rows)));
  return `${lines.join('\n')}\n`;
}

export function writePeersResults(
  rows: SystemRow[],
  meta: { runs: number; plainMedianMs: number; command: string; notes: string[]; workflowSteps?: StepRow[] },
): { json: string; md: string } {
  const dir = path.join(import.meta.dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const json = path.join(dir, `peers-${stamp}.json`);
  const md = path.join(dir, `peers-${stamp}.md`);
  writeFileSync(
    json,
    `${JSON.stringify({ at: new Date().toISOString(), node: process.version, cores: os.cpus().length, loadAverage: os.loadavg(), ...meta, rows, goals: peersGoals(rows) }, null, 2)}\n`,
  );
  const steps = meta.workflowSteps ? `\n${stepRowsMarkdown(meta.workflowSteps)}\n` : '';
  writeFileSync(md, `# bench:peers\n\n${markdown(rows, meta)}\n${steps}\n${meta.notes.map((n) => `- ${n}`).join('\n')}\n`);
  return { json: path.relative(process.cwd(), json), md: path.relative(process.cwd(), md) };
}
