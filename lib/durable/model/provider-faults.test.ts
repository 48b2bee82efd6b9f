/**
 * The guarantee under a real provider's behaviour: the real @ai-sdk/openai provider against a real HTTP
 * server (tests/support/chat-completions-server.ts) that answers 429 and 5xx, and numbers tool calls the
 * way providers do. The server counts model calls per step; the ledger counts refunds: both outside the agent.
 */
import { stepCountIs, tool } from 'ai';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { type ChatCompletionsServer, type ScriptedAnswer, startChatCompletionsServer } from '@/tests/support/chat-completions-server';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { Ledger } from '@/tests/support/refund-agent';
import { gnlTool, idempotencyKey, type Journal, runDurable } from '../index';

function refundTool(ledger: Ledger) {
  return gnlTool(
    tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      execute: async (input, { idempotencyKey: key }) => ledger.refund(key as string, input),
    }),
    { sideEffect: true },
  );
}

const refundCall = (id: string, orderId: string): ScriptedAnswer => ({ toolCalls: [{ id, name: 'refund', arguments: { orderId, amount: 40 } }] });

let server: ChatCompletionsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(journal: Journal, runId: string, ledger: Ledger) {
  return runDurable({
    runId,
    journal,
    model: (server as ChatCompletionsServer).model(),
    tools: { refund: refundTool(ledger) },
    prompt: 'Refund',
    stopWhen: stepCountIs(5),
  });
}

async function modelSteps(journal: Journal, runId: string): Promise<number[]> {
  return (await journal.events(runId)).flatMap((e) => (e.type === 'model-step' ? [e.step] : []));
}

describeEachJournal('a provider that answers 429 and 5xx, retried by the SDK', (target) => {
  const { journal } = target.open();

  it('a 429 then a success is one step: steps 0 and 1, one refund under the call key, and a replay calls nothing', async () => {
    server = await startChatCompletionsServer((step) => (step === 0 ? refundCall('call_abc', 'o_1') : { text: 'Refunded.' }));
    server.fail(0, { status: 429 });
    server.fail(1, { status: 503 }, { status: 500 });
    const runId = uniqueRunId();
    const ledger = new Ledger();
    const result = await run(journal, runId, ledger);
    expect(result.status).toBe('completed');
    expect(await modelSteps(journal, runId)).toEqual([0, 1]);
    expect([server.requests(0), server.requests(1)]).toEqual([2, 3]);
    expect([...ledger.executions]).toEqual([[idempotencyKey({ kind: 'call', runId, toolCallId: 'call_abc', toolName: 'refund' }), 1]]);

    const again = await run(journal, runId, ledger);
    expect(again.status).toBe('completed');
    expect([server.answered(0), server.answered(1)]).toEqual([1, 1]);
    expect(ledger.total).toBe(1);
  });

  it('errors past the retries fail the run at that step; the resume asks for the same step and refunds once', async () => {
    server = await startChatCompletionsServer((step) => (step === 0 ? refundCall('call_x', 'o_2') : { text: 'Refunded.' }));
    server.fail(1, { status: 503 }, { status: 503 }, { status: 503 });
    const runId = uniqueRunId();
    const ledger = new Ledger();
    await expect(run(journal, runId, ledger)).rejects.toMatchObject({ name: 'AI_RetryError' });
    expect((await journal.getRun(runId))?.status).toBe('failed');
    expect(await modelSteps(journal, runId)).toEqual([0]);

    const resumed = await run(journal, runId, ledger);
    expect(resumed.status).toBe('completed');
    expect(await modelSteps(journal, runId)).toEqual([0, 1]);
    expect([server.answered(0), server.answered(1)]).toEqual([1, 1]);
    expect(ledger.total).toBe(1);
  });
});

describeEachJournal('tool call ids as providers number them', (target) => {
  const { journal } = target.open();

  it('the same id in every response (call_0) names a new call each step: both refunds run, once each', async () => {
    server = await startChatCompletionsServer((step) =>
      step === 0 ? refundCall('call_0', 'o_a') : step === 1 ? refundCall('call_0', 'o_b') : { text: 'Both.' },
    );
    const runId = uniqueRunId();
    const ledger = new Ledger();
    const result = await run(journal, runId, ledger);
    expect(result.status).toBe('completed');
    const ends = (await journal.events(runId)).filter((e) => e.type === 'tool-call-end');
    expect(ends.map((e) => (e as { output: { refundId: string } }).output.refundId)).toEqual(['r_o_a', 'r_o_b']);
    expect(new Set(ends.map((e) => e.toolCallId)).size).toBe(2);
    expect(ledger.executions.size).toBe(2);
    expect(ledger.total).toBe(2);

    const again = await run(journal, runId, ledger);
    expect(again.status).toBe('completed');
    expect(ledger.total).toBe(2);
    expect([server.answered(0), server.answered(1), server.answered(2)]).toEqual([1, 1, 1]);
  });

  it('one answer repeating an id for two parallel calls: two calls, two refunds', async () => {
    server = await startChatCompletionsServer((step) =>
      step === 0
        ? {
            toolCalls: [
              { id: 'dup', name: 'refund', arguments: { orderId: 'o_c', amount: 40 } },
              { id: 'dup', name: 'refund', arguments: { orderId: 'o_d', amount: 40 } },
            ],
          }
        : { text: 'Both.' },
    );
    const runId = uniqueRunId();
    const ledger = new Ledger();
    expect((await run(journal, runId, ledger)).status).toBe('completed');
    expect(ledger.executions.size).toBe(2);
    expect(ledger.total).toBe(2);
    expect((await run(journal, runId, ledger)).status).toBe('completed');
    expect(ledger.total).toBe(2);
  });
});
