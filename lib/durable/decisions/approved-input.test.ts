import { tool } from 'ai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type OutsideService, startOutsideService } from '@/lib/demo/outside-service';
import { serviceClient } from '@/lib/demo/service-client';
import { issueRefundInput } from '@/lib/demo/support-tools';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import { approvedInputHash } from './approved-input';
import { type GnlToolOptions, gnlTool, idempotencyKey, JournalDataError, runDurable } from '../index';

const ASKED = { customerId: 'c_42', orderId: 'o_18', amount: 100 };
const EDITED = { customerId: 'c_42', orderId: 'o_18', amount: 60 };

let service: OutsideService;
beforeAll(async () => {
  service = await startOutsideService();
});
afterAll(() => service.close());

/** A refund that asks the real outside service under the call's key; it waits for a person. */
function refundAgent(options: Pick<GnlToolOptions, 'idempotency'> = {}) {
  const scripted = scriptedModel((step) =>
    step === 0 ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'issueRefund', input: ASKED }] } : { text: 'Refund handled.' },
  );
  const issueRefund = gnlTool(
    tool({
      inputSchema: issueRefundInput,
      execute: async (input, { idempotencyKey: key }) => serviceClient(service.url).perform('refunds', input, key),
    }),
    { sideEffect: true, needsApproval: true, ...options },
  );
  return { scripted, tools: { issueRefund } };
}

const performedUnder = (key: string) => service.stats().refunds.byKey[key]?.performed ?? 0;

describeEachJournal('edit, then approve', (target) => {
  const { journal, storage } = target.open();
  const call = (agent: ReturnType<typeof refundAgent>, runId: string) =>
    runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_18' });

  it("executes the approved arguments once, under the key of the approved arguments ('args'), and the model sees them", async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ idempotency: 'args' });
    expect((await call(agent, runId)).status).toBe('waiting-approval');
    const decision = await journal.approve({
      runId,
      toolCallId: 'call-refund',
      by: 'alice@acme',
      reason: 'partial refund',
      input: EDITED,
      inputSchema: issueRefundInput,
    });
    expect(decision).toMatchObject({ outcome: 'approved', by: 'alice@acme', editedInput: true });

    expect((await call(agent, runId)).status).toBe('completed');
    const key = idempotencyKey({ kind: 'args', runId, toolName: 'issueRefund', input: EDITED });
    const askedKey = idempotencyKey({ kind: 'args', runId, toolName: 'issueRefund', input: ASKED });
    // The outside service's own counters: the edited amount, once, under the approved arguments' key.
    expect(performedUnder(key)).toBe(1);
    expect(performedUnder(askedKey)).toBe(0);
    expect(service.stats().refunds.byKey[key]?.requests).toBe(1);

    const events = await journal.events(runId);
    expect(events.find((e) => e.type === 'tool-approval-request')).toMatchObject({ input: ASKED });
    expect(events.find((e) => e.type === 'tool-approval-response')).toMatchObject({
      approved: true,
      by: 'alice@acme',
      approvedInput: EDITED,
      approvedInputHash: approvedInputHash(EDITED),
    });
    expect(events.find((e) => e.type === 'tool-call-start')).toMatchObject({ input: EDITED, idempotencyKey: key });
    // The next model call's prompt carries what ran, not what the model asked.
    const prompt = JSON.stringify(agent.scripted.prompts[1]);
    expect(prompt).toContain('"amount":60');
    expect(prompt).not.toContain('"amount":100');

    // Replayed: nothing runs again.
    await call(agent, runId);
    expect(performedUnder(key)).toBe(1);
  });

  it('records, hashes and executes the arguments as the schema parsed them: keys it does not know (__proto__, constructor, injected) are dropped', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ idempotency: 'args' });
    await call(agent, runId);
    // As a browser's JSON arrives: "__proto__" an own key, not the prototype.
    const hostile = JSON.parse('{"customerId":"c_42","orderId":"o_18","amount":60,"__proto__":{"admin":true},"constructor":{"x":1},"injected":"yes"}');
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme', input: hostile, inputSchema: issueRefundInput });
    expect((await call(agent, runId)).status).toBe('completed');
    const events = await journal.events(runId);
    const response = events.find((e) => e.type === 'tool-approval-response') as { approvedInput?: unknown; approvedInputHash?: string };
    expect(response.approvedInput).toEqual(EDITED);
    expect(Object.keys(response.approvedInput as object).sort()).toEqual(Object.keys(EDITED).sort());
    expect(response.approvedInputHash).toBe(approvedInputHash(EDITED));
    const start = events.find((e) => e.type === 'tool-call-start') as { input: unknown; idempotencyKey: string };
    expect(Object.keys(start.input as object).sort()).toEqual(Object.keys(EDITED).sort());
    // The outside service performed the parsed arguments' refund, once.
    expect(performedUnder(idempotencyKey({ kind: 'args', runId, toolName: 'issueRefund', input: EDITED }))).toBe(1);
  });

  it("keeps the call's key under 'call' scope and executes the edited amount once", async () => {
    const runId = uniqueRunId();
    const agent = refundAgent();
    await call(agent, runId);
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme', input: EDITED });
    expect((await call(agent, runId)).status).toBe('completed');
    const key = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'issueRefund' });
    expect(performedUnder(key)).toBe(1);
    const start = (await journal.events(runId)).find((e) => e.type === 'tool-call-start');
    expect(start).toMatchObject({ input: EDITED, idempotencyKey: key });
  });

  it("refuses changed arguments that do not match the tool's input schema, naming every field, and records nothing", async () => {
    const runId = uniqueRunId();
    const agent = refundAgent();
    await call(agent, runId);
    const before = (await journal.events(runId)).length;
    const refused = await journal
      .approve({ runId, toolCallId: 'call-refund', by: 'alice@acme', input: { customerId: 7, orderId: 'o_18', amount: -5 }, inputSchema: issueRefundInput })
      .catch((error: unknown) => error);
    expect(JournalDataError.isInstance(refused)).toBe(true);
    expect((refused as InstanceType<typeof JournalDataError>).inputMismatch?.issues.map((i) => i.path).sort()).toEqual(['amount', 'customerId']);
    expect((await journal.events(runId)).length).toBe(before);
    expect((await journal.getRun(runId))?.pending).toEqual([expect.objectContaining({ kind: 'approval', toolCallId: 'call-refund' })]);
  });

  it('refuses to execute approved arguments whose recorded hash does not match them: nothing reaches the outside service', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ idempotency: 'args' });
    await call(agent, runId);
    // A decision row not written by journal.approve: its hash names other arguments than the ones it holds.
    const hold = await storage.runs.hold(runId);
    try {
      await hold.append([
        {
          type: 'tool-approval-response',
          toolCallId: 'call-refund',
          approved: true,
          by: 'mallory',
          approvedInput: { ...EDITED, amount: 119 },
          approvedInputHash: approvedInputHash(EDITED),
        },
      ]);
    } finally {
      await hold.release();
    }
    const refused = await call(agent, runId).catch((error: unknown) => error);
    expect(JournalDataError.isInstance(refused)).toBe(true);
    expect((refused as InstanceType<typeof JournalDataError>).approvedInputMismatch?.toolCallId).toBe('call-refund');
    for (const input of [EDITED, { ...EDITED, amount: 119 }, ASKED]) {
      expect(performedUnder(idempotencyKey({ kind: 'args', runId, toolName: 'issueRefund', input }))).toBe(0);
    }
    expect((await journal.events(runId)).some((e) => e.type === 'tool-call-start')).toBe(false);
    expect((await journal.getRun(runId))?.status).toBe('failed');
  });
});
