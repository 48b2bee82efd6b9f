/**
 * One invocation of the demo support agent in its own process, as an executor would run it: the agent
 * found by name in the registry (agents/index.ts), the journal from the environment (storageFromEnv:
 * DATABASE_URL, else GNL_DATA_DIR), the outside service at GNL_DEMO_SERVICE_URL, a crash point from
 * GNL_DEMO_CRASH_AT (then this process SIGKILLs itself there).
 *
 *   node --import tsx tests/support/demo-child.ts <runId> <prompt>
 *
 * Prints one JSON line (DemoChildOutcome) and exits 0, unless killed.
 */
import { getAgent } from '@/agents';
import { runAgent } from '@/lib/agents';
import { SideEffectRetryBlockedError } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';

export type DemoChildOutcome =
  | { outcome: 'completed'; pid: number; text: string; replayedSteps: number }
  | { outcome: 'waiting-approval'; pid: number; pending: { toolCallId: string; toolName: string }[] }
  | { outcome: 'blocked'; pid: number; toolCallId: string; toolName: string; idempotencyKey: string }
  | { outcome: 'error'; pid: number; name: string; message: string };

async function main(): Promise<DemoChildOutcome> {
  const [runId, prompt] = process.argv.slice(2);
  if (!runId || !prompt) throw new Error('usage: demo-child.ts <runId> <prompt>');
  const storage = storageFromEnv();
  try {
    const result = await runAgent({ agent: getAgent('support'), runId, input: { prompt }, journal: storage.runs });
    if (result.status === 'completed') return { outcome: 'completed', pid: process.pid, text: result.text, replayedSteps: result.replayedSteps };
    if (result.status === 'canceled') throw new Error(`unexpected: run canceled by ${result.by}`);
    return { outcome: 'waiting-approval', pid: process.pid, pending: result.pending.map(({ toolCallId, toolName }) => ({ toolCallId, toolName })) };
  } catch (error) {
    if (SideEffectRetryBlockedError.isInstance(error)) {
      const { toolCallId, toolName, idempotencyKey } = error;
      return { outcome: 'blocked', pid: process.pid, toolCallId, toolName, idempotencyKey };
    }
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { outcome: 'error', pid: process.pid, name, message };
  } finally {
    await storage.close();
  }
}

const outcome = await main();
process.stdout.write(`${JSON.stringify(outcome)}\n`, () => process.exit(0));
