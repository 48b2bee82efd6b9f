/**
 * One worker process of the workflow crash suite: an Executor with the suite's workflows on the journal
 * of its environment (DATABASE_URL, else the embedded one in GNL_DATA_DIR). With `start` it starts the
 * run first. It stays until the run is settled for now (waiting for an event, blocked, completed, failed;
 * a sleep or children are waited through), prints one JSON line and exits 0, unless a kill point
 * (crash-workflows.ts) SIGKILLs it first. With GNL_WF_KILL_AT=sleep it SIGKILLs itself once the run sleeps.
 * Its lease is short (3 s): on Postgres the next process takes over a killed one's runs once it lapses.
 *
 *   node workflow-child.ts <runId> [start]
 */
import { RunState, waitingFor } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { Executor, queueEntry, startWorkflow } from '@/lib/executor';
import { crashRegistry, KILL_AT_ENV } from './crash-workflows';

const [runId, start] = process.argv.slice(2);
if (!runId) throw new Error('usage: workflow-child.ts <runId> [start]');
const storage = storageFromEnv();
const executor = new Executor({ storage, registry: crashRegistry, pollMs: 25, leaseMs: 3_000 }).start();
if (start === 'start') await startWorkflow({ storage, registry: crashRegistry, workflow: 'crash-flow', runId, input: { customerId: 'c_42', orderId: 'o_17' } });
for (;;) {
  const run = await storage.runs.getRun(runId);
  const entry = await queueEntry(runId, { storage });
  const waits = run?.status === 'waiting' ? waitingFor(new RunState(await storage.runs.events(runId))) : [];
  if (process.env[KILL_AT_ENV] === 'sleep' && waits.some((wait) => wait.kind === 'sleep')) process.kill(process.pid, 'SIGKILL');
  const waitingThrough = waits.some((wait) => wait.kind === 'sleep' || wait.kind === 'children');
  // A waiting run is settled once nothing is due soon (an event that came makes it runnable now).
  const nothingDue = entry && (!entry.runnable || (entry.notBefore !== null && entry.notBefore.getTime() > Date.now() + 5_000));
  const settled = run && entry?.leaseOwner === null && !waitingThrough && nothingDue;
  if (settled && executor.activeRuns.length === 0) {
    await executor.stop({ graceMs: 2_000 });
    await storage.close();
    process.stdout.write(`${JSON.stringify({ status: run.status, outcome: entry?.outcome ?? null })}\n`, () => process.exit(0));
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 25));
}
