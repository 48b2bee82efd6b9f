/**
 * The demo's crash points in its own table, on real journals: armed once per run, read back by any
 * process, and armed by the hook around an invocation (the process's own GNL_DEMO_CRASH_AT otherwise).
 * That a crash point armed so really kills the executing process is lib/executor/in-process.test.ts and
 * workers.test.ts.
 */
import { expect, it } from 'vitest';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { uniqueRunId } from '@/tests/support/journals';
import { armedCrashPoint } from './crash-points';
import { CrashPointStore } from './crash-point-store';

describeEachStorage('demo crash point store', (holder) => {
  it('a run armed with a crash point reads it back, from another store on the same database too; the first arming wins', async () => {
    const runId = uniqueRunId('crash');
    const store = new CrashPointStore(holder.storage);
    expect(await store.armedFor(runId)).toBeUndefined();
    await store.arm(runId, 'after-refund-answered');
    await store.arm(runId, 'after-email-sent');
    expect(await new CrashPointStore(holder.storage).armedFor(runId)).toBe('after-refund-answered');
  });

  it('refuses a point that is not a crash point, naming the valid ones, and records nothing', async () => {
    const runId = uniqueRunId('crash');
    const store = new CrashPointStore(holder.storage);
    await expect(store.arm(runId, 'after-lunch' as never)).rejects.toThrow(
      'crashAt: "after-lunch" is not a crash point: use one of after-ticket-created, after-refund-answered, after-email-sent.',
    );
    expect(await store.armedFor(runId)).toBeUndefined();
  });

  it("the hook arms the run's crash point inside the invocation; a run without one keeps the process's own", async () => {
    const store = new CrashPointStore(holder.storage);
    const armed = uniqueRunId('crash');
    await store.arm(armed, 'after-ticket-created');
    const env = { GNL_DEMO_CRASH_AT: 'after-email-sent' };
    expect(await store.aroundInvocation({ runId: armed }, async () => armedCrashPoint(env))).toBe('after-ticket-created');
    expect(await store.aroundInvocation({ runId: uniqueRunId('plain') }, async () => armedCrashPoint(env))).toBe('after-email-sent');
  });
});
