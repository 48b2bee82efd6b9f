/**
 * journal.provideToolResult on both real journals: a run suspended waiting for the result of a tool
 * without execute (crafted through a hold, as the runtime would leave it), answered once, recorded as
 * the call's own end with who and why, and refused like every other decision.
 */
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { DecisionConflictError, idempotencyKey, JournalDataError, type PendingItem } from '../index';
import { query } from './sql-rows';

const input = { prompt: 'Where is the customer?', modelId: 'm', provider: 'x', toolNames: ['geolocate'] };
const OUTPUT = { lat: 52.52, lng: 13.405 };

describeEachJournal('provideToolResult', (target) => {
  const { journal, storage } = target.open();

  /** A run as runDurable leaves it when the model called geolocate, a tool without execute. */
  async function waitingForResult() {
    const runId = uniqueRunId();
    const key = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-geo' }, 1);
    const item: PendingItem = {
      kind: 'tool-result',
      toolCallId: 'call-geo',
      toolName: 'geolocate',
      input: { customerId: 'c_9' },
      idempotencyKey: key,
      requestedAt: new Date().toISOString(),
    };
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.append([{ type: 'run-suspend', status: 'waiting-tool-result', pending: [item] }]);
    await hold.release();
    return { runId, key };
  }

  const countEvents = async (runId: string) => (await journal.events(runId)).length;

  it("records the output as the call's end (source provided, who and why) and the decision in the pending list; the status stays waiting", async () => {
    const { runId, key } = await waitingForResult();
    expect((await journal.getRun(runId))?.status).toBe('waiting-tool-result');
    const decision = await journal.provideToolResult({ runId, toolCallId: 'call-geo', output: OUTPUT, by: 'alice@acme', reason: 'read from the device' });
    expect(decision).toEqual({ outcome: 'provided', by: 'alice@acme', at: expect.any(String), reason: 'read from the device' });
    const last = (await journal.events(runId)).at(-1);
    expect(last).toMatchObject({
      type: 'tool-call-end',
      toolCallId: 'call-geo',
      toolName: 'geolocate',
      idempotencyKey: key,
      attempt: 1,
      output: OUTPUT,
      durationMs: 0,
      source: 'provided',
      by: 'alice@acme',
      reason: 'read from the device',
    });
    const run = await journal.getRun(runId);
    expect(run?.status).toBe('waiting-tool-result');
    expect(run?.pending).toEqual([expect.objectContaining({ kind: 'tool-result', toolCallId: 'call-geo', decision })]);
    // The audit: the event row names who and why, and stays as written.
    const db = await storage.database();
    const [row] = await query<{ by: string; reason: string }>(
      db,
      sql`select payload->>'by' as by, payload->>'reason' as reason from gnl.run_events where run_id = ${runId} and type = 'tool-call-end'`,
    );
    expect(row).toEqual({ by: 'alice@acme', reason: 'read from the device' });
  });

  it('a second result for the call is a conflict naming who provided the first; nothing more is written', async () => {
    const { runId } = await waitingForResult();
    await journal.provideToolResult({ runId, toolCallId: 'call-geo', output: OUTPUT, by: 'alice@acme' });
    const before = await countEvents(runId);
    const again = await journal.provideToolResult({ runId, toolCallId: 'call-geo', output: { lat: 0, lng: 0 }, by: 'bob@acme' }).catch((e: unknown) => e);
    expect(DecisionConflictError.isInstance(again)).toBe(true);
    expect(again).toMatchObject({ reason: 'already-decided', decidedBy: 'alice@acme', decidedAt: expect.any(Date) });
    expect(await countEvents(runId)).toBe(before);
  });

  it('two results at once: exactly one is recorded', async () => {
    const { runId } = await waitingForResult();
    const outcomes = await Promise.allSettled(
      ['alice@acme', 'bob@acme', 'carol@acme'].map((by) => journal.provideToolResult({ runId, toolCallId: 'call-geo', output: { by }, by })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect((await journal.events(runId)).filter((e) => e.type === 'tool-call-end')).toHaveLength(1);
  });

  it('an unknown run, an unknown call, or a decision of another kind is refused with its reason', async () => {
    const { runId } = await waitingForResult();
    await expect(journal.provideToolResult({ runId: uniqueRunId('missing'), toolCallId: 'call-geo', output: OUTPUT, by: 'a@acme' })).rejects.toMatchObject({
      reason: 'unknown-run',
    });
    await expect(journal.provideToolResult({ runId, toolCallId: 'call-other', output: OUTPUT, by: 'a@acme' })).rejects.toMatchObject({
      reason: 'unknown-call',
      message: expect.stringContaining('it does not wait for a tool result'),
    });
    // An approval or a resolution does not answer a tool-result question.
    await expect(journal.approve({ runId, toolCallId: 'call-geo', by: 'a@acme' })).rejects.toMatchObject({ reason: 'unknown-call' });
    await expect(journal.resolveSideEffect({ runId, toolCallId: 'call-geo', outcome: 'done', output: OUTPUT, by: 'a@acme' })).rejects.toMatchObject({
      reason: 'unknown-call',
    });
    expect(await countEvents(runId)).toBe(2);
  });

  it('a canceled run refuses the result, naming who canceled; a run that executes refuses it as run-executing, naming since when', async () => {
    const canceled = await waitingForResult();
    await journal.cancel({ runId: canceled.runId, by: 'ops@acme', reason: 'customer left' });
    await expect(journal.provideToolResult({ runId: canceled.runId, toolCallId: 'call-geo', output: OUTPUT, by: 'a@acme' })).rejects.toMatchObject({
      reason: 'run-finished',
      decidedBy: 'ops@acme',
    });

    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    const start = await hold.create(input);
    try {
      const refusal = await journal.provideToolResult({ runId, toolCallId: 'call-geo', output: OUTPUT, by: 'a@acme' }).catch((e: unknown) => e);
      expect(refusal).toMatchObject({ name: 'DecisionConflictError', reason: 'run-executing', executingSince: start.at });
      expect((refusal as Error).message).toContain(`is running (its invocation began ${start.at.toISOString()})`);
    } finally {
      await hold.release();
    }
    expect(await countEvents(runId)).toBe(1);
  });

  it('an output that does not match the given outputSchema, or a request without output or without who, is refused and writes nothing', async () => {
    const { runId } = await waitingForResult();
    const outputSchema = z.object({ lat: z.number(), lng: z.number() });
    await expect(journal.provideToolResult({ runId, toolCallId: 'call-geo', output: { lat: 'north' }, outputSchema, by: 'a@acme' })).rejects.toThrow(
      /^provideToolResult: the output for call call-geo does not match the tool's output schema: lat: .*; lng: .*\. Nothing was recorded\.$/,
    );
    for (const bad of [
      { runId, toolCallId: 'call-geo', by: 'a@acme' },
      { runId, toolCallId: 'call-geo', output: OUTPUT, by: ' ' },
      { runId, toolCallId: 'call-geo', output: OUTPUT, by: 'a\u0007@acme' },
    ]) {
      const error = await journal.provideToolResult(bad as never).catch((e: unknown) => e);
      expect(JournalDataError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/^provideToolResult: /);
    }
    expect(await countEvents(runId)).toBe(2);
    // The matching output is accepted.
    await expect(journal.provideToolResult({ runId, toolCallId: 'call-geo', output: OUTPUT, outputSchema, by: 'a@acme' })).resolves.toMatchObject({
      outcome: 'provided',
    });
  });
});
