/**
 * A workflow step beside a DBOS step and a Vercel Workflow step (issues 28 and 31): the same 20-step
 * workflow, each step a side effect that returns a small value, run by GNL's runWorkflow on PostgresStorage,
 * by DBOS 5.3 as a registered workflow of 20 DBOS.runStep calls and by Vercel Workflow 4.8 as a workflow of
 * 20 steps (systems/workflow-bundle-entry.ts), on the same local Postgres (each in its own database, behind its own
 * counting proxy), interleaved with the same 20 calls done plainly. Reported: ms per step over plain, and
 * statements per step, each the median over the runs. Run by `npm run bench:peers` after the agent rows.
 */
import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { z } from 'zod';
import { defineWorkflow, runWorkflow } from '../../lib/durable';
import { PostgresStorage } from '../../lib/durable/storage';
import { summary } from '../stats';
import type { WorkflowSystem } from './systems/workflow';
import type { WireProxy } from './wire-proxy';

export const WORKFLOW_STEPS = 20;

/** The work inside each step: what both systems and the plain loop call. */
const work = async (n: number) => ({ recorded: `item-${n}` });

async function plainSteps(): Promise<number> {
  let count = 0;
  for (let n = 0; n < WORKFLOW_STEPS; n++) if ((await work(n)).recorded) count++;
  return count;
}

const gnlWorkflow = defineWorkflow({
  name: 'bench-steps',
  input: z.object({}),
  run: async (wf) => {
    let count = 0;
    for (let n = 0; n < WORKFLOW_STEPS; n++) if ((await wf.step(`record-${n}`, { input: { n }, sideEffect: true }, () => work(n))).recorded) count++;
    return count;
  },
});

async function dbosSteps(): Promise<number> {
  let count = 0;
  for (let n = 0; n < WORKFLOW_STEPS; n++) if ((await DBOS.runStep(() => work(n), { name: `record-${n}` })).recorded) count++;
  return count;
}
const dbosWorkflow = DBOS.registerWorkflow(dbosSteps, { name: 'gnl-peers-steps' });

export interface StepRow {
  system: string;
  msPerStep: number;
  statementsPerStep: number;
  runs: number;
}

/**
 * Measures both; `gnl` and `dbos` are the URLs (through their proxies) of databases that exist. DBOS must
 * be launched on its URL already (it is one per process: run.ts launches it for the agent rows).
 */
export async function measureWorkflowSteps(args: {
  gnl: { url: string; proxy: WireProxy };
  dbos: { proxy: WireProxy } | undefined;
  /** Vercel Workflow, started on its proxy already (run.ts starts it for the agent rows). */
  workflow?: { system: WorkflowSystem; proxy: WireProxy } | undefined;
  runs: number;
  warmup: number;
}): Promise<StepRow[]> {
  const storage = new PostgresStorage({ connectionString: args.gnl.url });
  const gnl = async () => {
    const result = await runWorkflow<number>({ workflow: gnlWorkflow, runId: `steps-${randomUUID()}`, input: {}, journal: storage.runs });
    if (result.status !== 'completed' || result.output !== WORKFLOW_STEPS) throw new Error(`GNL workflow ended ${result.status}`);
  };
  const dbos = async () => {
    const handle = await DBOS.startWorkflow(dbosWorkflow, { workflowID: `steps-${randomUUID()}` })();
    if ((await handle.getResult()) !== WORKFLOW_STEPS) throw new Error('DBOS workflow did not record every step');
  };
  const vercel = async () => {
    if ((await args.workflow?.system.runSteps()) !== WORKFLOW_STEPS) throw new Error('Vercel Workflow did not record every step');
  };
  const timed = async (work: () => Promise<unknown>, proxy?: WireProxy) => {
    const before = proxy?.counts.statements ?? 0;
    const started = performance.now();
    await work();
    return { ms: performance.now() - started, statements: (proxy?.counts.statements ?? 0) - before };
  };
  try {
    for (let i = 0; i < args.warmup; i++) {
      await plainSteps();
      await gnl();
      if (args.dbos) await dbos();
      if (args.workflow) await vercel();
    }
    const plain: number[] = [];
    const samples = {
      gnl: { ms: [] as number[], statements: [] as number[] },
      dbos: { ms: [] as number[], statements: [] as number[] },
      workflow: { ms: [] as number[], statements: [] as number[] },
    };
    for (let i = 0; i < args.runs; i++) {
      plain.push((await timed(plainSteps)).ms);
      const g = await timed(gnl, args.gnl.proxy);
      samples.gnl.ms.push(g.ms);
      samples.gnl.statements.push(g.statements);
      if (args.dbos) {
        const d = await timed(dbos, args.dbos.proxy);
        samples.dbos.ms.push(d.ms);
        samples.dbos.statements.push(d.statements);
      }
      if (args.workflow) {
        const w = await timed(vercel, args.workflow.proxy);
        samples.workflow.ms.push(w.ms);
        samples.workflow.statements.push(w.statements);
      }
    }
    const plainMedian = summary(plain).median;
    const row = (system: string, s: { ms: number[]; statements: number[] }): StepRow => ({
      system,
      msPerStep: (summary(s.ms).median - plainMedian) / WORKFLOW_STEPS,
      statementsPerStep: summary(s.statements).median / WORKFLOW_STEPS,
      runs: s.ms.length,
    });
    return [
      row('GNL workflow step', samples.gnl),
      ...(args.dbos ? [row('DBOS 5.3 step', samples.dbos)] : []),
      ...(args.workflow ? [row('Vercel Workflow 4.8 step', samples.workflow)] : []),
    ];
  } finally {
    await storage.close();
  }
}

export function stepRowsMarkdown(rows: StepRow[]): string {
  return [
    `| ${WORKFLOW_STEPS}-step workflow | ms per step over plain (median) | statements per step | runs |`,
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.system} | ${r.msPerStep.toFixed(3)} | ${r.statementsPerStep.toFixed(2)} | ${r.runs} |`),
  ].join('\n');
}
