/**
 * One process of the crash scenario: runs the agent of one system under a given run id; the tool's
 * effect counts each execution at the outside counter (key `<runId>:<step>`).
 *
 *   node --import tsx bench/peers/crash-child.ts <json CrashChildArgs>
 *
 * mode 'crash': at step `crashStep`, once the counter has counted the effect and before the tool
 * returns (so before the system can record it), the process SIGKILLs itself.
 * mode 'recover': a new process of the same system, as a restart would be; prints one JSON line
 * (CrashChildOutcome) and exits 0.
 */
import { z } from 'zod';
import type { AgentAnswer, Effect } from './agent';
import { countExecution } from './counter';

export const CrashChildArgs = z.object({
  system: z.enum(['gnl', 'dbos', 'workflow']),
  mode: z.enum(['crash', 'recover']),
  runId: z.string().min(1),
  crashStep: z.number().int().nonnegative(),
  counterUrl: z.url(),
  databaseUrl: z.string().startsWith('postgres'),
});
export type CrashChildArgs = z.infer<typeof CrashChildArgs>;

export type CrashChildOutcome = { outcome: 'completed'; answer: AgentAnswer } | { outcome: 'blocked'; detail: string } | { outcome: 'error'; detail: string };

async function main(args: CrashChildArgs): Promise<CrashChildOutcome> {
  const effect: Effect = async (step) => {
    await countExecution(args.counterUrl, `${args.runId}:${step}`);
    if (args.mode === 'crash' && step === args.crashStep) process.kill(process.pid, 'SIGKILL');
  };
  const options = { url: args.databaseUrl, effect };
  try {
    if (args.system === 'gnl') {
      const { GnlSystem, SideEffectRetryBlockedError } = await import('./systems/gnl');
      const gnl = new GnlSystem(options);
      try {
        return { outcome: 'completed', answer: await gnl.run(args.runId) };
      } catch (error) {
        if (SideEffectRetryBlockedError.isInstance(error)) return { outcome: 'blocked', detail: error.message };
        throw error;
      } finally {
        await gnl.close();
      }
    }
    if (args.system === 'dbos') {
      const { DbosSystem } = await import('./systems/dbos');
      const dbos = await DbosSystem.launch(options);
      try {
        // A crash run starts the workflow; a recovering process finds it recovered by launch and waits for its end.
        return { outcome: 'completed', answer: args.mode === 'crash' ? await dbos.run(args.runId) : await dbos.result(args.runId) };
      } finally {
        await dbos.close();
      }
    }
    const { WorkflowSystem } = await import('./systems/workflow');
    const workflow = await WorkflowSystem.start(options);
    try {
      return { outcome: 'completed', answer: args.mode === 'crash' ? await workflow.run(args.runId) : await workflow.recoveredResult() };
    } finally {
      await workflow.close();
    }
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    return { outcome: 'error', detail: `${e.name}: ${e.message}` };
  }
}

const outcome = await main(CrashChildArgs.parse(JSON.parse(process.argv[2] ?? '{}')));
process.stdout.write(`${JSON.stringify(outcome)}\n`, () => process.exit(0));
