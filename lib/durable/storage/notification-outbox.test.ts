/**
 * The notification outbox row is written by the append that leaves a run waiting for people or failed,
 * in the same statement (docs/notifications.md): on both journals, raw SQL over gnl.notifications.
 */
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import type { JournalEvent } from '../index';
import { query } from './sql-rows';

const input = { prompt: 'p', modelId: 'm', provider: 'x', toolNames: [] };
const pending = [{ kind: 'approval' as const, toolCallId: 'c', toolName: 't', input: {}, requestedAt: new Date().toISOString() }];
const suspend: JournalEvent = { type: 'run-suspend', status: 'waiting-approval', pending };
const fail: JournalEvent = { type: 'run-fail', error: { name: 'Boom', message: 'no' } };
const step: JournalEvent = { type: 'model-step', step: 0, provider: 'x', modelId: 'm', latencyMs: 1, result: {} };

describeEachJournal('notification outbox', (target) => {
  const { journal, storage } = target.open();
  const rows = async (runId: string) =>
    query<{ seq: number; status: string; delivery: string; attempts: number }>(
      await storage.database(),
      sql`select seq, status, delivery, attempts from gnl.notifications where run_id = ${runId} order by seq`,
    );

  it('a suspend and a failure each get one pending row, keyed by their seq; other appends none', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.append([step]);
    const [suspended] = await hold.append([suspend]);
    await hold.append([{ type: 'run-resume', fromStatus: 'waiting-approval' }, step]);
    const [failed] = await hold.append([fail]);
    await hold.release();
    expect(await rows(runId)).toEqual([
      { seq: suspended?.seq, status: 'waiting-approval', delivery: 'pending', attempts: 0 },
      { seq: failed?.seq, status: 'failed', delivery: 'pending', attempts: 0 },
    ]);
  });

  it("a batch whose last status is not for people (a fork's copied suspend, then resume) announces nothing", async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.append([step, suspend, { type: 'run-resume', fromStatus: 'waiting-approval' }]);
    await hold.release();
    expect(await rows(runId)).toEqual([]);
  });

  it('a canceled run announces no failure of the invocation that was stopped', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    await journal.cancel({ runId, by: 'ops', reason: 'dup' });
    await hold.append([fail]);
    await hold.release();
    expect((await journal.getRun(runId))?.status).toBe('canceled');
    expect(await rows(runId)).toEqual([]);
  });

  it('an announcing append refused by its fence writes no outbox row either', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    const start = await hold.create(input);
    await hold.append([step]);
    await expect(hold.appendAfter(start.seq, [suspend])).rejects.toThrow();
    await hold.release();
    expect(await rows(runId)).toEqual([]);
  });
});
