/**
 * A server-like process with the in-process executor (getExecutor(): storageFromEnv(), the deployment's
 * agents, the demo's crash points armed around each invocation), as the Studio's server runs it. Optionally starts one run, then waits until the run it was
 * told about is settled, prints one JSON line and exits 0 (unless a crash point killed it first).
 *
 *   node --import tsx tests/support/executor-child.ts <runId> [<prompt> [<crashAt>]]
 */
import { registry } from '@/agents';
import { CrashPointStore } from '@/lib/demo';
import { queueEntry } from '@/lib/executor';
import { getExecutor, stopExecutor } from '@/lib/executor/in-process';
import { storageFromEnv } from '@/lib/durable/storage';

const [runId, prompt, crashAt] = process.argv.slice(2);
if (!runId) throw new Error('usage: executor-child.ts <runId> [<prompt> [<crashAt>]]');
const storage = storageFromEnv();
const crashPoints = new CrashPointStore(storage);
const executor = getExecutor({ registry, pollMs: 50, leaseMs: 60_000, aroundInvocation: crashPoints.aroundInvocation });
if (crashAt) await crashPoints.arm(runId, crashAt as never);
if (prompt) await executor.startRun({ agent: 'support', runId, input: { prompt } });
for (;;) {
  const entry = await queueEntry(runId);
  if (entry && !entry.runnable && entry.leaseOwner === null) {
    await stopExecutor();
    const run = await storage.runs.getRun(runId);
    await storage.close();
    process.stdout.write(
      `${JSON.stringify({ pid: process.pid, owner: executor.owner, outcome: entry.outcome, status: run?.status, claims: entry.claims })}\n`,
      () => process.exit(0),
    );
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}
