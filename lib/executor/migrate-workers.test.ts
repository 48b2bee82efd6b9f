/**
 * A deploy with real worker processes on Postgres: a run recorded on an earlier version of the support
 * agent (another system prompt) waits for its refund's approval; the workers run the deployment's
 * registry (agents/index.ts), which no longer has that version. A worker refuses the run (stranded:
 * nothing runs), the test migrates it to the deployed version, and a worker finishes it, SIGKILLing
 * itself right after the refund (a demo crash point): the next worker's check finds the refund by its
 * key. The outside service's own counters: one ticket, one refund, one email.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SUPPORT_SYSTEM, supportAgent } from '@/agents/support';
import { createAgentRegistry, defineAgent, runAgent } from '@/lib/agents';
import { CrashPointStore } from '@/lib/demo';
import { supportTools } from '@/lib/demo/support-tools';
import { RunState } from '@/lib/durable';
import { DATABASE_URL } from '@/tests/support/journals';
import { workerWorld } from '@/tests/support/worker-world';
import { startWorker } from '@/tests/support/worker-process';
import { migrateRun, previewMigration, queueEntry, resumeRun } from './index';

const suite = DATABASE_URL ? describe : describe.skip;

suite(`migration across a deploy of worker processes${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  const world = workerWorld();
  const worker = () => {
    const w = startWorker({ databaseUrl: world.databaseUrl, serviceUrl: world.service.url, concurrency: 1, leaseMs: 2_000, pollMs: 100 });
    world.workers.push(w);
    return w;
  };
  const settledAs = async (runId: string, outcome: string, timeoutMs = 90_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const entry = await queueEntry(runId, { storage: world.storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && entry.outcome === outcome) return entry;
      if (Date.now() > deadline) throw new Error(`run ${runId} did not settle as ${outcome}: ${JSON.stringify(entry)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('a stranded run is refused by the deployed workers, migrated, and finished once by them across a SIGKILL after the refund', async () => {
    const deployed = supportAgent({ serviceUrl: world.service.url });
    const earlier = defineAgent({
      name: 'support',
      model: deployed.model,
      tools: supportTools({ serviceUrl: world.service.url }),
      system: `${SUPPORT_SYSTEM}\n(an earlier wording)`,
      stopWhen: deployed.settings.stopWhen,
    });
    const runId = `support:${randomUUID()}`;
    const waiting = await runAgent({
      agent: earlier,
      runId,
      input: { prompt: 'Customer c_42 wants a refund of 40 for order o_17' },
      journal: world.storage.runs,
    });
    expect(waiting.status).toBe('waiting-approval');
    const toolCallId = (await world.storage.runs.getRun(runId))?.pending[0]?.toolCallId as string;
    await world.storage.runs.approve({ runId, toolCallId, by: 'ops@example.com' });

    // The deploy: a worker process with the deployment's registry. It refuses the run; nothing runs.
    const a = worker();
    await resumeRun(runId, { storage: world.storage, by: 'ops@example.com', reason: 'refund approved' });
    const refused = await settledAs(runId, 'diverged');
    expect(refused.error).toContain('RunDivergedError');
    expect(world.service.stats()).toMatchObject({ tickets: { performed: 1 }, refunds: { requests: 0 }, emails: { requests: 0 } });

    // Migrated on purpose, with the crash point armed: the worker SIGKILLs itself right after the refund.
    await new CrashPointStore(world.storage).arm(runId, 'after-refund-answered');
    const registry = createAgentRegistry([deployed]);
    const preview = await previewMigration(runId, { storage: world.storage, registry });
    expect(preview).toMatchObject({ safe: true, to: deployed.version, from: earlier.version });
    await migrateRun(runId, { storage: world.storage, registry, by: 'ops@example.com', reason: 'support prompt reworded in this deploy' });
    expect((await a.exited).signal).toBe('SIGKILL');
    worker();
    await settledAs(runId, 'completed');

    expect(world.service.stats()).toMatchObject({ tickets: { performed: 1 }, refunds: { requests: 1, performed: 1 }, emails: { performed: 1 } });
    const events = await world.storage.runs.events(runId);
    expect(new RunState(events)).toMatchObject({ status: 'completed', agentVersion: deployed.version });
    expect(events.filter((e) => e.type === 'tool-call-start' && e.toolName === 'createTicket')).toHaveLength(1);
    expect(events.find((e) => e.type === 'tool-call-end' && e.toolName === 'issueRefund')).toMatchObject({ source: 'check' });
  }, 240_000);
});
