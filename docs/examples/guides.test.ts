/**
 * The guides' code, run: each example module against a real journal (embedded PGlite, and Postgres when
 * DATABASE_URL is set) and a real HTTP outside world whose own counters decide. Crashes are real: a child
 * process runs the example code and is SIGKILLed by the outside world at the guide's moment.
 */
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Journal,
  RunDivergedError,
  runDurable,
  SideEffectRetryBlockedError,
} from '@gnldev/durable';
import { PGliteStorage, PostgresStorage } from '@gnldev/durable/storage';
import {
  DATABASE_URL,
  describeEachJournal,
  type JournalTarget,
  tempDataDir,
  uniqueRunId,
} from '@/tests/support/journals';
import { approvalInbox, decide, handleRefundRequest, handleWithLimit } from './refund-approvals';
import {
  type Refund,
  refundAtLegacyPsp,
  refundChecked,
  refundOnce,
  refundOncePerOrder,
  refundRetrySafe,
  settleRefund,
} from './refund-tools';
import { refundScript, replanScript, worldModel } from './test-support/models';
import { type OutsideWorld, startOutsideWorld } from './test-support/outside-world';
import { childArgs, ROOT } from '@/tests/support/child-bundles';

interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  outcome?: unknown;
  stderr: string;
}

/** Runs one scenario in a child process; `env` says which journal (GNL_DATA_DIR or DATABASE_URL). */
function startChild(
  scenario: string,
  world: OutsideWorld,
  jobId: string,
  env: Record<string, string>,
) {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    GUIDE_SCENARIO: scenario,
    WORLD_URL: world.url,
    JOB_ID: jobId,
    ...env,
  };
  delete childEnv.NODE_OPTIONS;
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, childArgs('docs/examples/test-support/child.ts'), {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const ended = new Promise<ChildEnd>((resolve) =>
    child.on('close', (code, signal) => {
      const last = stdout.trim().split('\n').at(-1);
      resolve({
        code,
        signal,
        stderr,
        outcome: code === 0 && last ? JSON.parse(last).outcome : undefined,
      });
    }),
  );
  return { pid: child.pid as number, ended };
}

/** Where the children of one test keep their journal, and the same journal for the test afterwards. */
function journalFor(target: JournalTarget): {
  env: Record<string, string>;
  journal: () => Journal;
  close: () => Promise<void>;
} {
  if (target.name === 'postgres') {
    const storage = new PostgresStorage({ connectionString: DATABASE_URL as string });
    return {
      env: { DATABASE_URL: DATABASE_URL as string },
      journal: () => storage.runs,
      close: () => storage.close(),
    };
  }
  const dataDir = tempDataDir();
  let storage: PGliteStorage | undefined;
  return {
    env: { GNL_DATA_DIR: dataDir },
    // Opened only once the children are gone: the embedded journal serves one process at a time.
    journal: () => {
      storage ??= new PGliteStorage({ dataDir });
      return storage.runs;
    },
    close: async () => storage?.close(),
  };
}

const steps = (world: OutsideWorld, pid?: number) =>
  world.modelCalls.filter((c) => pid === undefined || c.pid === pid).map((c) => c.step);

let world: OutsideWorld;
beforeEach(async () => {
  world = await startOutsideWorld();
});
afterEach(async () => {
  await world.close();
});

describe('guide: resume a generateText agent after a crash (control group: plain generateText)', () => {
  it('the retry after a crash between two steps starts from the top and opens a second ticket', async () => {
    const env = { GNL_DATA_DIR: tempDataDir() };
    const first = startChild('support-generateText', world, uniqueRunId('job'), env);
    void world.killWhen(first.pid, (e) => e.kind === 'model-call' && e.step === 2);
    expect((await first.ended).signal).toBe('SIGKILL');
    expect([world.tickets.length, world.emails.length]).toEqual([1, 0]);

    const retry = await startChild('support-generateText', world, uniqueRunId('job'), env).ended;
    expect(retry.code, retry.stderr).toBe(0);
    expect([world.tickets.length, world.emails.length]).toEqual([2, 1]);
    expect(steps(world)).toEqual([0, 1, 2, 0, 1, 2, 3]);
  });
});

describeEachJournal('guide: resume a generateText agent after a crash', (target) => {
  const opened = target.open();

  it('a runId names one job: the same runId with another prompt is refused with RunDivergedError, naming what differs', async () => {
    const { journal } = opened;
    const ticketId = uniqueRunId('t');
    const request = (amount: number) =>
      handleRefundRequest({
        journal,
        model: worldModel({
          worldUrl: world.url,
          agent: 'identity',
          script: refundScript({ orderId: ticketId, amount }),
        }),
        psp: `${world.url}/psp`,
        ticketId,
        message: `Refund ${amount} for order ${ticketId}`,
      });
    expect(await request(40)).toMatchObject({ status: 'done' });
    const other = await request(41).catch((e: unknown) => e);
    expect(RunDivergedError.isInstance(other)).toBe(true);
    expect((other as RunDivergedError).differences.map((d) => d.field)).toEqual(['prompt']);
  });

  it('runDurable: the retry continues at the step the crash interrupted; one ticket, one email, no recorded step asked again', async () => {
    const shared = journalFor(target);
    try {
      const jobId = uniqueRunId('job');
      const first = startChild('support-durable', world, jobId, shared.env);
      void world.killWhen(first.pid, (e) => e.kind === 'model-call' && e.step === 2);
      expect((await first.ended).signal).toBe('SIGKILL');
      expect([world.tickets.length, world.emails.length]).toEqual([1, 0]);

      const retry = startChild('support-durable', world, jobId, shared.env);
      const end = await retry.ended;
      expect(end.code, end.stderr).toBe(0);
      expect(end.outcome).toBe('done');
      expect([world.tickets.length, world.emails.length, world.customerLookups]).toEqual([1, 1, 1]);
      expect(steps(world, first.pid)).toEqual([0, 1, 2]); // killed while asking for step 2
      expect(steps(world, retry.pid)).toEqual([2, 3]); // steps 0 and 1 came from the journal
      expect((await shared.journal().getRun(`support:${jobId}`))?.status).toBe('completed');
    } finally {
      await shared.close();
    }
  });
});

describeEachJournal('guide: my AI SDK tool ran twice after a retry', (target) => {
  const { journal } = target.open();
  const psp = () => `${world.url}/psp`;
  const refunds = (orderId: string) => world.refunds.get(orderId)?.length ?? 0;

  describe('the model re-plans the same refund under a new call id', () => {
    const run = (orderId: string, refund: ReturnType<typeof refundOnce>) =>
      runDurable({
        runId: uniqueRunId('replan'),
        journal,
        model: worldModel({
          worldUrl: world.url,
          agent: orderId,
          script: replanScript({ orderId, amount: 40 }),
        }),
        tools: { refund },
        prompt: `Refund order ${orderId}`,
      });

    it("sideEffect alone ('call'): a new call id is new work, so the PSP refunds twice", async () => {
      expect((await run('o_call', refundOnce(psp()))).status).toBe('completed');
      expect(refunds('o_call')).toBe(2);
    });

    it("idempotency 'args': the same arguments are the same refund; the second call gets the first's result", async () => {
      const result = await run('o_args', refundOncePerOrder(psp()));
      expect(result.status).toBe('completed');
      expect(refunds('o_args')).toBe(1);
      expect(world.refundRequests.get('o_args')).toBe(1);
      if (result.status !== 'completed') return;
      const outputs = result.steps.flatMap((s) =>
        s.toolResults.map((r) => (r.output as Refund).refundId),
      );
      expect(outputs).toHaveLength(2);
      expect(new Set(outputs).size).toBe(1);
    });
  });

  it('the process dies inside the refund after the PSP did it: blocked, retrySafe, check, and a PSP that ignores keys', async () => {
    const shared = journalFor(target);
    try {
      const prefix = uniqueRunId('in-flight');
      world.hold.add('refund').add('legacy-refund');
      const child = startChild('refund-in-flight', world, prefix, shared.env);
      const executed = (w: OutsideWorld) =>
        [...w.refunds.values()].flat().length +
        [...w.legacyRefunds.values()].reduce((a, b) => a + b, 0);
      void world.killWhen(
        child.pid,
        (e, w) => (e.kind === 'refund' || e.kind === 'legacy-refund') && executed(w) === 4,
      );
      expect((await child.ended).signal).toBe('SIGKILL');
      world.hold.clear();
      expect([
        refunds('o_once'),
        refunds('o_retry-safe'),
        refunds('o_checked'),
        world.legacyRefunds.get('o_legacy'),
      ]).toEqual([1, 1, 1, 1]);

      const resume = (name: string, refund: ReturnType<typeof refundOnce>) =>
        runDurable({
          runId: `${prefix}:${name}`,
          journal: shared.journal(),
          model: worldModel({
            worldUrl: world.url,
            agent: name,
            script: refundScript({ orderId: `o_${name}`, amount: 40 }),
          }),
          tools: { refund },
          prompt: `Refund order o_${name}`,
        });

      // sideEffect alone: GNL cannot know, so it does not guess.
      const blocked = await resume('once', refundOnce(psp())).catch((e: unknown) => e);
      expect(SideEffectRetryBlockedError.isInstance(blocked)).toBe(true);
      expect(refunds('o_once')).toBe(1);
      const found = world.refunds.get('o_once')?.[0];
      await settleRefund(
        shared.journal(),
        blocked as SideEffectRetryBlockedError,
        found,
        'ops@acme',
      );
      const settled = await resume('once', refundOnce(psp()));
      expect(settled.status === 'completed' && settled.steps[0]?.toolResults[0]?.output).toEqual(
        found,
      );
      expect(refunds('o_once')).toBe(1);

      // retrySafe: sent again under the same key; the PSP answers with the first refund.
      expect((await resume('retry-safe', refundRetrySafe(psp()))).status).toBe('completed');
      expect([refunds('o_retry-safe'), world.refundRequests.get('o_retry-safe')]).toEqual([1, 2]);

      // check: the PSP says it happened; its refund is recorded and execute is not called again.
      const lookups = world.refundLookups;
      expect((await resume('checked', refundChecked(psp()))).status).toBe('completed');
      expect([
        refunds('o_checked'),
        world.refundRequests.get('o_checked'),
        world.refundLookups - lookups,
      ]).toEqual([1, 1, 1]);

      // A PSP that ignores the key, marked retrySafe anyway: the refund happens twice. Nothing can prevent it.
      expect((await resume('legacy', refundAtLegacyPsp(`${world.url}/legacy-psp`))).status).toBe(
        'completed',
      );
      expect(world.legacyRefunds.get('o_legacy')).toBe(2);

      // No resume asked the model again for the step that requested the refund.
      for (const name of ['once', 'retry-safe', 'checked', 'legacy']) {
        expect(world.modelCalls.filter((c) => c.agent === name).map((c) => c.step)).toEqual([0, 1]);
      }
    } finally {
      await shared.close();
    }
  });

  describe('the refund times out after the PSP did it (the tool throws)', () => {
    const run = (runId: string, orderId: string, refund: ReturnType<typeof refundOnce>) =>
      runDurable({
        runId,
        journal,
        model: worldModel({
          worldUrl: world.url,
          agent: orderId,
          script: refundScript({ orderId, amount: 40 }),
        }),
        tools: { refund },
        prompt: `Refund order ${orderId}`,
      });

    for (const [mark, make] of [
      ['sideEffect alone', refundOnce],
      ['check', refundChecked],
    ] as const) {
      it(`${mark}: ${mark === 'check' ? 'the PSP is asked at once and its refund recorded; the run completes' : 'the run is blocked at once, and stays blocked on resume'}`, async () => {
        const runId = uniqueRunId('timeout');
        const orderId = `o_slow_${mark === 'check' ? 'check' : 'once'}`;
        world.hold.add('refund');
        const first = await run(runId, orderId, make(psp(), { timeoutMs: 300 })).then(
          (r) => r.status,
          (e: unknown) => (SideEffectRetryBlockedError.isInstance(e) ? 'blocked' : e),
        );
        expect(first).toBe(mark === 'check' ? 'completed' : 'blocked');
        expect(refunds(orderId)).toBe(1);
        world.hold.clear();

        const resumed = await run(runId, orderId, make(psp(), { timeoutMs: 300 })).then(
          (r) => r.status,
          (e: unknown) => (SideEffectRetryBlockedError.isInstance(e) ? 'blocked' : e),
        );
        expect(resumed).toBe(mark === 'check' ? 'completed' : 'blocked');
        expect([refunds(orderId), world.refundRequests.get(orderId)]).toEqual([1, 1]);
      });
    }
  });
});

describeEachJournal('guide: human approval before an AI SDK tool runs', (target) => {
  const { journal } = target.open();
  const request = (ticketId: string, amount: number) =>
    handleRefundRequest({
      journal,
      model: worldModel({
        worldUrl: world.url,
        agent: ticketId,
        script: refundScript({ orderId: ticketId, amount }),
      }),
      psp: `${world.url}/psp`,
      ticketId,
      message: `Refund ${amount} for order ${ticketId}`,
    });
  const refunds = (orderId: string) => world.refunds.get(orderId)?.length ?? 0;
  const inboxOf = async (runId: string) =>
    (await approvalInbox(journal)).filter((q) => q.runId === runId);

  it('a small refund runs without a question', async () => {
    const ticketId = uniqueRunId('t');
    expect(await request(ticketId, 40)).toMatchObject({ status: 'done' });
    expect(refunds(ticketId)).toBe(1);
  });

  it('a large refund waits in the journal; approved, it runs once before any new model call; calling again runs nothing', async () => {
    const ticketId = uniqueRunId('t');
    const runId = `refund-request:${ticketId}`;
    const waiting = await request(ticketId, 250);
    expect(waiting).toMatchObject({
      status: 'waiting',
      questions: [
        {
          toolCallId: 'call-refund',
          toolName: 'refund',
          input: { orderId: ticketId, amount: 250 },
        },
      ],
    });
    expect(await request(ticketId, 250)).toMatchObject({ status: 'waiting' }); // asking again changes nothing
    expect(await inboxOf(runId)).toEqual([
      expect.objectContaining({ runId, toolCallId: 'call-refund', toolName: 'refund' }),
    ]);
    expect(refunds(ticketId)).toBe(0);

    expect(
      await decide(journal, {
        runId,
        toolCallId: 'call-refund',
        approve: true,
        by: 'alice@acme',
        reason: 'customer verified',
      }),
    ).toEqual({ recorded: true });
    expect(await inboxOf(runId)).toEqual([]);
    expect(await request(ticketId, 250)).toMatchObject({ status: 'done' });
    expect(await request(ticketId, 250)).toMatchObject({ status: 'done' });
    expect(refunds(ticketId)).toBe(1);
    expect(steps(world).length).toBe(2); // step 0 asked once, step 1 after the approval

    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types.slice(types.indexOf('tool-approval-response'))).toEqual([
      'tool-approval-response',
      'run-resume',
      'tool-call-start',
      'tool-call-end',
      'model-step',
      'run-complete',
    ]);
  });

  it('rejected, the refund never runs; the model gets the refusal with its reason and the run finishes', async () => {
    const ticketId = uniqueRunId('t');
    const runId = `refund-request:${ticketId}`;
    await request(ticketId, 250);
    await decide(journal, {
      runId,
      toolCallId: 'call-refund',
      approve: false,
      by: 'bob@acme',
      reason: 'refund window closed',
    });
    expect(await request(ticketId, 250)).toMatchObject({ status: 'done' });
    expect(refunds(ticketId)).toBe(0);
    const response = (await journal.events(runId)).find((e) => e.type === 'tool-approval-response');
    expect(response).toMatchObject({
      approved: false,
      by: 'bob@acme',
      reason: 'refund window closed',
    });
  });

  it('decisions are keyed by toolCallId; a second decision is refused and names who decided first', async () => {
    const ticketId = uniqueRunId('t');
    const runId = `refund-request:${ticketId}`;
    await request(ticketId, 250);
    const [first, second] = [
      await decide(journal, { runId, toolCallId: 'call-refund', approve: true, by: 'alice@acme' }),
      await decide(journal, { runId, toolCallId: 'call-refund', approve: false, by: 'bob@acme' }),
    ];
    expect(first).toEqual({ recorded: true });
    expect(second).toEqual({ recorded: false, reason: 'already-decided', decidedBy: 'alice@acme' });
    expect(
      await decide(journal, { runId, toolCallId: 'no-such-call', approve: true, by: 'alice@acme' }),
    ).toMatchObject({ reason: 'unknown-call' });
  });

  it("the v7 toolApproval call option decides per call: over the requester's limit it waits, under it it runs", async () => {
    const over = uniqueRunId('t');
    const under = uniqueRunId('t');
    const call = (ticketId: string, refundLimit: number) =>
      handleWithLimit({
        journal,
        model: worldModel({
          worldUrl: world.url,
          agent: ticketId,
          script: refundScript({ orderId: ticketId, amount: 80 }),
        }),
        psp: `${world.url}/psp`,
        ticketId,
        message: `Refund 80 for order ${ticketId}`,
        refundLimit,
      });
    expect((await call(over, 50)).status).toBe('waiting-approval');
    expect((await call(under, 500)).status).toBe('completed');
    expect([refunds(over), refunds(under)]).toEqual([0, 1]);
  });
});
