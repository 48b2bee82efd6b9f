import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import {
  ChildRunFailedError,
  defineWorkflow,
  EventRefusedError,
  RunDivergedError,
  RunState,
  runWorkflow,
  SideEffectRetryBlockedError,
  type ChildStarter,
  type Workflow,
  WorkflowInputError,
} from '../index';

/** A clock the test moves: sleeps and deadlines are measured by it. */
function testClock(start = Date.parse('2026-12-04T10:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describeEachJournal('workflows', (target) => {
  const { journal } = target.open();

  it('a step is journaled once: a replay answers from the record and the function is not called again', async () => {
    let calls = 0;
    const wf = defineWorkflow({
      name: 'twice',
      input: z.object({ n: z.number() }),
      run: async (w, { n }) => {
        const doubled = await w.step('double', () => {
          calls++;
          return n * 2;
        });
        const random = await w.random();
        return { doubled, random };
      },
    });
    const runId = uniqueRunId();
    const first = await runWorkflow({ workflow: wf, runId, input: { n: 21 }, journal });
    expect(first).toMatchObject({ status: 'completed', output: { doubled: 42 } });
    const again = await runWorkflow({ workflow: wf, runId, input: { n: 21 }, journal });
    expect(again).toEqual(first);
    expect(calls).toBe(1);
    expect((await journal.getRun(runId))?.status).toBe('completed');
    await expect(runWorkflow({ workflow: wf, runId, input: { n: 'x' }, journal })).rejects.toBeInstanceOf(WorkflowInputError);
  });

  it('a side-effect step that throws is blocked for a person, never run again on a guess; marked done, the workflow goes on with that output', async () => {
    let sent = 0;
    const wf = defineWorkflow({
      name: 'refund-flow',
      input: z.object({ orderId: z.string() }),
      run: async (w, { orderId }) => {
        const refund = await w.step('refund', { sideEffect: true, input: { orderId } }, () => {
          sent++;
          throw new Error('socket hang up');
        });
        return { refund };
      },
    });
    const runId = uniqueRunId();
    await expect(runWorkflow({ workflow: wf, runId, input: { orderId: 'o_1' }, journal })).rejects.toBeInstanceOf(SideEffectRetryBlockedError);
    await expect(runWorkflow({ workflow: wf, runId, input: { orderId: 'o_1' }, journal })).rejects.toBeInstanceOf(SideEffectRetryBlockedError);
    expect(sent).toBe(1);
    const summary = await journal.getRun(runId);
    expect(summary?.status).toBe('blocked');
    expect(summary?.pending).toMatchObject([{ kind: 'side-effect', toolName: 'refund', toolCallId: 'wf-0' }]);
    await journal.resolveSideEffect({ runId, toolCallId: 'wf-0', outcome: 'done', output: { refundId: 'r_9' }, by: 'ops@acme' });
    expect(await runWorkflow({ workflow: wf, runId, input: { orderId: 'o_1' }, journal })).toMatchObject({
      status: 'completed',
      output: { refund: { refundId: 'r_9' } },
    });
    expect(sent).toBe(1);
  });

  it('a fallback step the code runs after catching a blocked step’s stop is never executed: the run is blocked for a person, not completed', async () => {
    let fallbacks = 0;
    const wf = defineWorkflow({
      name: 'refund-with-fallback',
      input: z.object({ orderId: z.string() }),
      run: async (w, { orderId }) => {
        try {
          return await w.step('refund', { sideEffect: true, input: { orderId } }, () => {
            throw new Error('socket hang up');
          });
        } catch {
          // The refund may have gone through: a second provider's refund now would be a second refund.
          return await w.step('refund-elsewhere', { sideEffect: true, input: { orderId } }, () => {
            fallbacks++;
            return { refundId: 'r_other' };
          });
        }
      },
    });
    const runId = uniqueRunId();
    await expect(runWorkflow({ workflow: wf, runId, input: { orderId: 'o_2' }, journal })).rejects.toBeInstanceOf(SideEffectRetryBlockedError);
    expect(fallbacks).toBe(0);
    const summary = await journal.getRun(runId);
    expect(summary?.status).toBe('blocked');
    expect(summary?.pending).toMatchObject([{ kind: 'side-effect', toolName: 'refund', toolCallId: 'wf-0' }]);
    // Marked done by a person (the PSP has it), the workflow goes on with that output: no fallback ever ran.
    await journal.resolveSideEffect({ runId, toolCallId: 'wf-0', outcome: 'done', output: { refundId: 'r_9' }, by: 'ops@acme' });
    expect(await runWorkflow({ workflow: wf, runId, input: { orderId: 'o_2' }, journal })).toMatchObject({ status: 'completed', output: { refundId: 'r_9' } });
    expect(fallbacks).toBe(0);
  });

  it('a retry-safe step out of retries stops the run: a fallback the code runs after catching it is never executed; a resume retries under the same key', async () => {
    let fallbacks = 0;
    const keys: string[] = [];
    let failing = true;
    const wf = defineWorkflow({
      name: 'charge-with-fallback',
      input: z.object({ orderId: z.string() }),
      run: async (w, { orderId }) => {
        try {
          return await w.step('charge', { sideEffect: true, retrySafe: true, maxRetries: 0, input: { orderId } }, ({ idempotencyKey }) => {
            keys.push(idempotencyKey);
            // Timed out after the provider charged: safe to send again under its key, never through another provider.
            if (failing) throw new Error('timeout after 30 s');
            return { chargeId: 'ch_1' };
          });
        } catch {
          return await w.step('charge-backup', { sideEffect: true, input: { orderId } }, () => {
            fallbacks++;
            return { chargeId: 'ch_backup' };
          });
        }
      },
    });
    const runId = uniqueRunId();
    await expect(runWorkflow({ workflow: wf, runId, input: { orderId: 'o_3' }, journal })).rejects.toMatchObject({ name: 'ToolCallFailedError' });
    expect(fallbacks).toBe(0);
    expect((await journal.getRun(runId))?.status).toBe('failed');
    failing = false;
    expect(await runWorkflow({ workflow: wf, runId, input: { orderId: 'o_3' }, journal })).toMatchObject({ status: 'completed', output: { chargeId: 'ch_1' } });
    expect(fallbacks).toBe(0);
    expect(new Set(keys).size).toBe(1);
  });

  it('a return value the journal cannot keep fails the run once, recorded: a resume does not replay the steps to meet it again', async () => {
    let calls = 0;
    const wf = defineWorkflow({
      name: 'returns-a-cycle',
      input: z.object({}),
      run: async (w) => {
        const ticket = await w.step('ticket', { sideEffect: true, retrySafe: true }, () => {
          calls++;
          return { ticketId: 't_1' };
        });
        const answer: Record<string, unknown> = { ticket };
        answer.self = answer;
        return answer;
      },
    });
    const runId = uniqueRunId();
    const first = await runWorkflow({ workflow: wf, runId, input: {}, journal }).catch((error: unknown) => error);
    expect(first).toMatchObject({ name: 'JournalDataError' });
    const summary = await journal.getRun(runId);
    expect(summary?.status).toBe('failed');
    expect(new RunState(await journal.events(runId)).failure).toMatchObject({ name: 'JournalDataError' });
    expect(calls).toBe(1);
  });

  it('a schema that transforms the input and an event’s payload: the run records them as given, each invocation and wait parses them again', async () => {
    const wf = defineWorkflow({
      name: 'transforms',
      input: z.object({ amount: z.string().transform(Number) }),
      events: { approved: z.object({ cents: z.string().transform(Number) }) },
      run: async (w, { amount }) => {
        const approved = await w.waitForEvent('approved');
        if (approved.timedOut) throw new Error('no deadline was set');
        const { cents } = approved.payload as { cents: number };
        return { amount, cents, sum: amount + cents };
      },
    });
    const runId = uniqueRunId();
    expect(await runWorkflow({ workflow: wf, runId, input: { amount: '12' }, journal })).toMatchObject({ status: 'waiting' });
    // Recorded as given: an executor invokes the run again with what the run recorded, parsed again.
    const recorded = (await journal.getRun(runId))?.input.workflow?.input;
    expect(recorded).toEqual({ amount: '12' });
    await journal.sendEvent({ runId, name: 'approved', payload: { cents: '30' }, by: 'ops@acme' });
    const done = await runWorkflow({ workflow: wf, runId, input: recorded, journal });
    expect(done).toMatchObject({ status: 'completed', output: { amount: 12, cents: 30, sum: 42 } });
    // The wait recorded the parsed value: a replay gives the same.
    expect(await runWorkflow({ workflow: wf, runId, input: recorded, journal })).toEqual(done);
  });

  it('a step that needs approval waits for a person; approved it runs once, rejected it throws StepRejectedError into the workflow', async () => {
    let ran = 0;
    const wf = defineWorkflow({
      name: 'approve-flow',
      input: z.object({}),
      run: async (w) => {
        try {
          return await w.step('email', { sideEffect: true, needsApproval: true, input: { to: 'c@x' } }, () => ++ran);
        } catch (error) {
          return `not sent: ${(error as Error).name}`;
        }
      },
    });
    const approved = uniqueRunId();
    expect(await runWorkflow({ workflow: wf, runId: approved, input: {}, journal })).toMatchObject({ status: 'waiting-approval' });
    await journal.approve({ runId: approved, toolCallId: 'wf-0', by: 'ops@acme' });
    expect(await runWorkflow({ workflow: wf, runId: approved, input: {}, journal })).toMatchObject({ status: 'completed', output: 1 });
    const rejected = uniqueRunId();
    await runWorkflow({ workflow: wf, runId: rejected, input: {}, journal });
    await journal.reject({ runId: rejected, toolCallId: 'wf-0', by: 'ops@acme', reason: 'wrong customer' });
    expect(await runWorkflow({ workflow: wf, runId: rejected, input: {}, journal })).toMatchObject({
      status: 'completed',
      output: 'not sent: StepRejectedError',
    });
    expect(ran).toBe(1);
  });

  it('a durable sleep suspends the run (waiting), answers without writing while not due, and goes on once the clock passes it', async () => {
    const clock = testClock();
    let after = 0;
    const wf = defineWorkflow({
      name: 'nap',
      input: z.object({}),
      run: async (w) => {
        await w.sleep('cool-off', 60_000);
        after++;
        return 'woke';
      },
    });
    const runId = uniqueRunId();
    const first = await runWorkflow({ workflow: wf, runId, input: {}, journal, clock: clock.now });
    expect(first).toMatchObject({ status: 'waiting', waitingFor: [{ kind: 'sleep', name: 'cool-off', until: new Date(clock.now() + 60_000).toISOString() }] });
    const seq = (await journal.getRun(runId))?.lastSeq;
    clock.advance(59_000);
    expect(await runWorkflow({ workflow: wf, runId, input: {}, journal, clock: clock.now })).toMatchObject({ status: 'waiting' });
    expect((await journal.getRun(runId))?.lastSeq).toBe(seq);
    clock.advance(1_000);
    expect(await runWorkflow({ workflow: wf, runId, input: {}, journal, clock: clock.now })).toMatchObject({ status: 'completed', output: 'woke' });
    expect(after).toBe(1);
    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types).toEqual(['run-start', 'workflow-wait', 'run-suspend', 'run-resume', 'workflow-wait-end', 'run-complete']);
  });

  it('an event sent before the wait is kept and delivered once; the same event id twice is one event; a match picks its event; a deadline is a value', async () => {
    const clock = testClock();
    const wf = defineWorkflow({
      name: 'reply',
      input: z.object({ ticket: z.string() }),
      events: { 'customer-reply': z.object({ ticket: z.string(), text: z.string() }) },
      run: async (w, { ticket }) => {
        const first = await w.waitForEvent<{ text: string }>('customer-reply', { match: { ticket } });
        const second = await w.waitForEvent<{ text: string }>('customer-reply', { match: { ticket }, timeoutMs: 3_600_000 });
        return { first: first.timedOut ? 'timeout' : first.payload.text, second: second.timedOut ? 'timeout' : second.payload.text };
      },
    });
    const runId = uniqueRunId();
    expect(await runWorkflow({ workflow: wf, runId, input: { ticket: 't_1' }, journal, clock: clock.now })).toMatchObject({ status: 'waiting' });
    // Sent twice under one id (a retried send), plus one for another ticket: the workflow sees one.
    const sends = [
      await journal.sendEvent({ runId, name: 'customer-reply', eventId: 'e-1', payload: { ticket: 't_1', text: 'thanks' }, by: 'desk' }),
      await journal.sendEvent({ runId, name: 'customer-reply', eventId: 'e-1', payload: { ticket: 't_1', text: 'thanks' }, by: 'desk' }),
      await journal.sendEvent({ runId, name: 'customer-reply', eventId: 'e-2', payload: { ticket: 't_2', text: 'other' }, by: 'desk' }),
    ];
    expect(sends.map((s) => s.recorded)).toEqual([true, false, true]);
    expect(await runWorkflow({ workflow: wf, runId, input: { ticket: 't_1' }, journal, clock: clock.now })).toMatchObject({
      status: 'waiting',
      waitingFor: [{ kind: 'event', event: 'customer-reply', timeoutAt: new Date(clock.now() + 3_600_000).toISOString() }],
    });
    clock.advance(3_600_000);
    const done = await runWorkflow({ workflow: wf, runId, input: { ticket: 't_1' }, journal, clock: clock.now });
    expect(done).toEqual({ status: 'completed', runId, output: { first: 'thanks', second: 'timeout' } });
    const events = await journal.events(runId);
    expect(events.filter((e) => e.type === 'workflow-event')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'workflow-wait-end').map((e) => (e as { outcome: string }).outcome)).toEqual(['event', 'timeout']);
    await expect(journal.sendEvent({ runId, name: 'customer-reply', payload: {}, by: 'desk' })).rejects.toBeInstanceOf(EventRefusedError);
    await expect(journal.sendEvent({ runId: uniqueRunId(), name: 'customer-reply', payload: {}, by: 'desk' })).rejects.toMatchObject({ reason: 'unknown-run' });
  });

  it('an event sent racing the wait (before it, during its suspend, after it; each twice under one id) is delivered once, never lost', async () => {
    const wf = defineWorkflow({
      name: 'race',
      input: z.object({}),
      events: { go: z.object({ n: z.number() }) },
      run: async (w) => {
        const got = await w.waitForEvent<{ n: number }>('go');
        return got.timedOut ? null : got.payload.n;
      },
    });
    const invokeUntilDone = async (runId: string) => {
      for (let i = 0; i < 20; i++) {
        const result = await runWorkflow({ workflow: wf, runId, input: {}, journal });
        if (result.status === 'completed') return result.output;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`run ${runId} never took its event`);
    };
    // Each run's two sends start at a different moment against its first invocation: as it starts, before
    // its wait is written, during the suspend, after it.
    const runs = Array.from({ length: 12 }, (_, k) => ({ runId: uniqueRunId('race'), delayMs: k % 4 === 0 ? 0 : k * 2 }));
    await Promise.all(
      runs.map(async ({ runId, delayMs }, n) => {
        const first = runWorkflow({ workflow: wf, runId, input: {}, journal });
        const send = async () => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          // The run's start may not be written yet: an unknown run is refused, and the sender tries again.
          for (;;) {
            try {
              return await journal.sendEvent({ runId, name: 'go', eventId: `go-${n}`, payload: { n }, by: 'racer' });
            } catch (error) {
              if ((error as { reason?: string }).reason !== 'unknown-run') throw error;
              await new Promise((resolve) => setTimeout(resolve, 1));
            }
          }
        };
        const [, a, b] = await Promise.all([first, send(), send()]);
        expect([a.recorded, b.recorded].sort()).toEqual([false, true]);
        expect(await invokeUntilDone(runId)).toBe(n);
        const events = await journal.events(runId);
        expect(events.filter((e) => e.type === 'workflow-event')).toHaveLength(1);
        expect(events.filter((e) => e.type === 'workflow-wait-end')).toMatchObject([{ outcome: 'event', eventId: `go-${n}` }]);
      }),
    );
  });

  it('a replay that meets a changed step order stops with RunDivergedError naming the step', async () => {
    const runId = uniqueRunId();
    const before = defineWorkflow({
      name: 'order',
      input: z.object({}),
      run: async (w) => {
        await w.step('classify', () => 'refund');
        await w.sleep('cool-off', 60_000);
        return 'done';
      },
    });
    await runWorkflow({ workflow: before, runId, input: {}, journal });
    const after = defineWorkflow({
      name: 'order',
      version: '2',
      input: z.object({}),
      run: async (w) => {
        await w.step('classify', () => 'refund');
        await w.step('notify', () => 'sent');
        return 'done';
      },
    });
    const diverged = runWorkflow({ workflow: after, runId, input: {}, journal, clock: () => Date.now() + 120_000 });
    await expect(diverged).rejects.toBeInstanceOf(RunDivergedError);
    await expect(diverged).rejects.toThrow(/workflow step 2 \(wf-1\) was recorded as sleep "cool-off" and the workflow now calls step "notify"/);
    expect((await journal.getRun(runId))?.status).toBe('failed');
  });

  it('child runs: a fan-out starts at most `concurrency` children, waits holding nothing, and returns each outcome in order; a failure with onFailure throw', async () => {
    const leaf = defineWorkflow({
      name: 'leaf',
      input: z.object({ n: z.number() }),
      run: async (w, { n }) => {
        if (n === 3) throw new Error('three is bad');
        return await w.step('square', () => n * n);
      },
    });
    const started: string[] = [];
    const starter: ChildStarter = {
      async start(child) {
        started.push(child.runId);
        // The test's executor: starts the child run (idempotent by runId), nothing else.
        await runWorkflow({ workflow: leaf, runId: child.runId, input: child.input, journal, parent: child.parent }).catch(() => undefined);
      },
    };
    const parent = (onFailure: 'throw' | 'collect'): Workflow =>
      defineWorkflow({
        name: `fan-${onFailure}`,
        input: z.object({ ns: z.array(z.number()) }),
        run: async (w, { ns }) =>
          w.all(
            'squares',
            ns.map((n) => ({ workflow: 'leaf', input: { n } })),
            { concurrency: 2, onFailure },
          ),
      });
    const ok = uniqueRunId();
    const result = await runWorkflow({ workflow: parent('collect'), runId: ok, input: { ns: [1, 2, 3, 4] }, journal, children: starter });
    // Each child ran to its end inside start(): two at a time, the next as each settled (the parent is invoked again for them).
    let next = result;
    for (let i = 0; i < 4 && next.status === 'waiting'; i++)
      next = await runWorkflow({ workflow: parent('collect'), runId: ok, input: { ns: [1, 2, 3, 4] }, journal, children: starter });
    expect(next).toMatchObject({
      status: 'completed',
      output: [
        { runId: `${ok}/squares/0`, status: 'completed', output: 1 },
        { runId: `${ok}/squares/1`, status: 'completed', output: 4 },
        { runId: `${ok}/squares/2`, status: 'failed', error: { message: 'three is bad' } },
        { runId: `${ok}/squares/3`, status: 'completed', output: 16 },
      ],
    });
    expect(started).toHaveLength(4);
    expect((await journal.events(`${ok}/squares/0`))[0]).toMatchObject({ input: { parent: { runId: ok, waitId: 'wf-0' } } });

    const failing = uniqueRunId();
    let outcome = await runWorkflow({ workflow: parent('throw'), runId: failing, input: { ns: [3, 1, 2] }, journal, children: starter }).catch((e) => e);
    for (let i = 0; i < 4 && outcome?.status === 'waiting'; i++) {
      outcome = await runWorkflow({ workflow: parent('throw'), runId: failing, input: { ns: [3, 1, 2] }, journal, children: starter }).catch((e) => e);
    }
    expect(outcome).toBeInstanceOf(ChildRunFailedError);
    // The first child failed as it started (this starter runs a child to its end): no other starts, both are skipped.
    expect(started.filter((id) => id.startsWith(failing))).toEqual([`${failing}/squares/0`]);
    expect((outcome as ChildRunFailedError).outcomes.map((o) => o.status)).toEqual(['failed', 'skipped', 'skipped']);
    expect((await journal.getRun(failing))?.status).toBe('failed');
  });
  it('a child wait’s name used again (wf.child in a loop) is refused, naming the earlier wait: its child’s output is never taken for the new one', async () => {
    const leaf = defineWorkflow({ name: 'leaf-once', input: z.object({ n: z.number() }), run: async (w, { n }) => w.step('square', () => n * n) });
    const starter: ChildStarter = {
      async start(child) {
        await runWorkflow({ workflow: leaf, runId: child.runId, input: child.input, journal, parent: child.parent }).catch(() => undefined);
      },
    };
    const loop = defineWorkflow({
      name: 'child-in-a-loop',
      input: z.object({ ns: z.array(z.number()) }),
      run: async (w, { ns }) => {
        const squares: unknown[] = [];
        for (const n of ns) squares.push(await w.child('square', { workflow: 'leaf-once', input: { n } }));
        return squares;
      },
    });
    const runId = uniqueRunId();
    let result = await runWorkflow({ workflow: loop, runId, input: { ns: [2, 3] }, journal, children: starter }).catch((error: unknown) => error);
    for (let i = 0; i < 3 && (result as { status?: string }).status === 'waiting'; i++)
      result = await runWorkflow({ workflow: loop, runId, input: { ns: [2, 3] }, journal, children: starter }).catch((error: unknown) => error);
    expect(result).toBeInstanceOf(WorkflowInputError);
    expect((result as Error).message).toContain(`child run "${runId}/square" is the child of an earlier wait of this run ("square", wf-0)`);
    expect((await journal.getRun(runId))?.status).toBe('failed');
    // One child ran (n = 2); none for n = 3 was ever taken for done.
    expect(await journal.getRun(`${runId}/square`)).toMatchObject({ status: 'completed' });
  });
  it('a wait’s or a sleep’s instant that is not one (NaN, an invalid Date, a typo) is refused as bad input, never a bare RangeError', async () => {
    const cases: [string, (w: Parameters<Workflow['run']>[0]) => Promise<unknown>, RegExp][] = [
      ['timeoutMs', (w) => w.waitForEvent('go', { timeoutMs: Number.NaN }), /timeoutMs: a number of milliseconds/],
      ['timeoutAt', (w) => w.waitForEvent('go', { timeoutAt: new Date(Number.NaN) }), /timeoutAt: a Date or an ISO 8601 instant/],
      ['sleepUntil', (w) => w.sleepUntil('nap', 'next tuesday'), /at: a Date or an ISO 8601 instant/],
      ['sleepUntil Date', (w) => w.sleepUntil('nap', new Date(Number.NaN)), /at: a Date or an ISO 8601 instant/],
    ];
    for (const [label, call, message] of cases) {
      const wf = defineWorkflow({ name: 'bad-instant', input: z.object({}), run: async (w) => call(w) });
      const error = await runWorkflow({ workflow: wf, runId: uniqueRunId(), input: {}, journal }).catch((e: unknown) => e);
      expect(error, label).toBeInstanceOf(WorkflowInputError);
      expect((error as Error).message, label).toMatch(message);
    }
  });
  it('two waits for one event name side by side (Promise.all) take two events, never the same one twice', async () => {
    const wf = defineWorkflow({
      name: 'two-waits',
      input: z.object({}),
      events: { ok: z.object({ n: z.number() }) },
      run: async (w) => {
        const [a, b] = await Promise.all([w.waitForEvent<{ n: number }>('ok'), w.waitForEvent<{ n: number }>('ok')]);
        return [a, b].map((r) => (r.timedOut ? null : r.payload.n)).sort();
      },
    });
    const runId = uniqueRunId();
    expect((await runWorkflow({ workflow: wf, runId, input: {}, journal })).status).toBe('waiting');
    await journal.sendEvent({ runId, name: 'ok', eventId: 'e1', payload: { n: 1 }, by: 'test' });
    await journal.sendEvent({ runId, name: 'ok', eventId: 'e2', payload: { n: 2 }, by: 'test' });
    expect(await runWorkflow({ workflow: wf, runId, input: {}, journal })).toMatchObject({ status: 'completed', output: [1, 2] });
  });
});
