/**
 * RunSession.retakeToRecord's limits, on the real Postgres (issue 33): a tool's outcome whose write failed
 * because the hold was lost is recorded only under the run's hold taken again, after this invocation's own
 * last event. When the hold cannot be had again (the database stays away for longer than the window; here a
 * journal whose server never answers), nothing is written and the invocation stops with the original error.
 */
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { freePort } from '@/tests/support/free-port';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { HoldLostError } from '../errors';
import { RunState } from '../projection/run-state';
import { PostgresStorage } from '../storage';
import { RunSession } from './run-session';

describe.skipIf(!DATABASE_URL)(`taking a lost hold again to record an outcome [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  it('gives up after its window when the hold cannot be had again: nothing written, the original HoldLostError', async () => {
    const applicationName = `gnl-retake-${process.pid}`;
    const url = new URL(DATABASE_URL as string);
    url.searchParams.set('application_name', applicationName);
    const storage = new PostgresStorage({ connectionString: url.toString() });
    const down = new URL(DATABASE_URL as string);
    down.port = String(await freePort()); // nothing listens there: refused, as a database that is down
    const away = new PostgresStorage({ connectionString: down.toString(), clientOptions: { connect_timeout: 1 } });
    const admin = postgres(DATABASE_URL as string, { max: 1, onnotice: () => {} });
    const runId = uniqueRunId('retake-gives-up');
    try {
      const hold = await storage.runs.hold(runId);
      const start = await hold.create({ prompt: 'Refund o_17', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['refund'] });
      const [begun] = await hold.append([
        { type: 'tool-call-start', toolCallId: 'c1', toolName: 'refund', input: { orderId: 'o_17' }, idempotencyKey: 'k1', attempt: 1, sideEffect: true },
      ]);
      const session = new RunSession(runId, hold, new RunState([start, begun as typeof start]));
      let attempts = 0;
      session.retake = () => {
        attempts += 1;
        return away.runs.hold(runId); // the database, as this process sees it, stays away
      };
      session.retakeWithinMs = 1_000;
      // The hold's session ends (a restart would do the same): its lock goes with it.
      await admin`select pg_terminate_backend(l.pid, 5000) from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and a.application_name = ${applicationName}`;
      const failed = await session
        .append({
          type: 'tool-call-end',
          toolCallId: 'c1',
          toolName: 'refund',
          idempotencyKey: 'k1',
          attempt: 1,
          output: { refundId: 'r_1' },
          durationMs: 5,
          source: 'executed',
        })
        .catch((error: unknown) => error);
      expect(HoldLostError.isInstance(failed)).toBe(true);
      expect(attempts).toBeGreaterThan(1); // it kept trying within its window before it gave up
      expect((await storage.runs.events(runId)).map((e) => e.type)).toEqual(['run-start', 'tool-call-start']);
      expect(session.fatal).toBe(failed);
    } finally {
      await admin.end({ timeout: 5 });
      await away.close();
      await storage.close();
    }
  });
});
