/**
 * GNL behind Debian's real PgBouncer (issue 33), on the test Postgres:
 * - pool_mode=session: a run with an approval goes through the pooler whole (the hold's advisory lock,
 *   appends, a decision, the live listener, completion), its refund executed once;
 * - pool_mode=transaction: the hold is refused when it is taken (HoldSessionError 'transaction-pooling',
 *   naming the setting), before the run's first event: session advisory locks and LISTEN need a session.
 */
import { describe, expect, it } from 'vitest';
import { HoldSessionError, type RecordedEvent, runDurable } from '@/lib/durable';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { PGBOUNCER, startPgBouncer } from '@/tests/support/pgbouncer';
import { refundAgent } from '@/tests/support/refund-agent';
import { PostgresStorage } from './index';

const available = Boolean(DATABASE_URL && PGBOUNCER);
const suite = available ? describe : describe.skip;

suite(`GNL behind PgBouncer${available ? '' : ' (skipped: needs DATABASE_URL and pgbouncer)'}`, { timeout: 120_000 }, () => {
  it('session pooling: a run with an approval goes through it whole, the live listener hears it, the refund executes once', async () => {
    const bouncer = await startPgBouncer({ serverUrl: DATABASE_URL as string, mode: 'session' });
    const storage = new PostgresStorage({ connectionString: bouncer.url });
    try {
      const journal = storage.runs;
      const runId = uniqueRunId('pgbouncer-session');
      const heard: string[] = [];
      const subscription = await journal.subscribe({ runId, onEvents: (events: RecordedEvent[]) => void heard.push(...events.map((e) => e.type)) });
      const agent = refundAgent({ sideEffect: true, needsApproval: true });
      const call = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
      expect((await call()).status).toBe('waiting-approval');
      await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
      expect((await call()).status).toBe('completed');
      expect(agent.ledger.total).toBe(1);
      const deadline = Date.now() + 10_000;
      while (!heard.includes('run-complete') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await subscription.close();
      expect(heard).toContain('tool-approval-response');
      expect(heard.at(-1)).toBe('run-complete');
    } finally {
      await storage.close();
      await bouncer.close();
    }
  });

  it('transaction pooling: the hold is refused when taken, naming pool_mode=transaction, and the run gets no event', async () => {
    const bouncer = await startPgBouncer({ serverUrl: DATABASE_URL as string, mode: 'transaction', poolSize: 4 });
    const storage = new PostgresStorage({ connectionString: bouncer.url });
    const direct = new PostgresStorage({ connectionString: DATABASE_URL as string });
    try {
      const runId = uniqueRunId('pgbouncer-transaction');
      const error = await storage.runs.hold(runId).catch((e: unknown) => e);
      expect(HoldSessionError.isInstance(error), `${String(error)}\n${bouncer.log()}`).toBe(true);
      expect(error).toMatchObject({ reason: 'transaction-pooling' });
      expect((error as Error).message).toContain('pool_mode=transaction');
      expect(await direct.runs.getRun(runId)).toBeUndefined();
      console.log(`  through PgBouncer (pool_mode=transaction): ${(error as Error).message}`);
    } finally {
      await storage.close();
      await direct.close();
      await bouncer.close();
    }
  });
});
