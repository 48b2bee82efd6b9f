/**
 * The guarantee under ordinary tools and ordinary non-determinism: streaming (async-generator) tools,
 * a toolApproval policy that changes its mind, repairs and computed defaults that derive other
 * arguments on replay, equal-argument twins of unknown outcome, tools without execute. Each run is
 * interrupted the way a crash leaves it (the model fails at a later step, so the run is failed and
 * resumable) and resumed; the ledger (tests/support/refund-agent.ts) counts what really executed.
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { Ledger, leaveRefundInFlight, refundAgent } from '@/tests/support/refund-agent';
import { type ScriptedStep, stepResult } from '@/tests/support/scripted-model';
import { gnlTool, type GnlToolOptions, runDurable } from '../index';

/** A scripted model whose step `failAt` throws once (a provider error after the SDK's retries). */
function interruptedModel(script: (step: number) => ScriptedStep | LanguageModelV4GenerateResult, failAt?: number) {
  let failed = failAt === undefined;
  const prompts: unknown[] = [];
  let calls = 0;
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-v1',
    doGenerate: async (options) => {
      const step = options.prompt.filter((m) => m.role === 'assistant').length;
      if (!failed && step === failAt) {
        failed = true;
        throw new Error('provider down');
      }
      calls += 1;
      prompts.push(options.prompt);
      const answer = script(step);
      return 'content' in answer ? answer : stepResult(answer, step);
    },
  });
  return { model, prompts, calls: () => calls };
}

const callRefund = (toolCallId: string, input: unknown): ScriptedStep => ({ toolCalls: [{ toolCallId, toolName: 'refund', input }] });

function refundTool(
  ledger: Ledger,
  options: GnlToolOptions<any, any> = { sideEffect: true },
  schema: z.ZodType = z.object({ orderId: z.string(), amount: z.number() }),
) {
  return gnlTool(
    tool({
      inputSchema: schema,
      execute: async (input: any, { idempotencyKey: key }) => ledger.refund(key as string, input),
    }),
    options,
  );
}

async function failed(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describeEachJournal('tools as the world writes them', (target) => {
  const { journal } = target.open();

  it('an async-generator tool runs: its start is durable before the first value is pulled, its last value is the output', async () => {
    const runId = uniqueRunId();
    const ledger = new Ledger();
    const seenAtFirstPull: string[] = [];
    const refund = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        async *execute(input, { idempotencyKey: key }) {
          seenAtFirstPull.push(...(await journal.events(runId)).map((e) => e.type));
          yield { status: 'pending' as const };
          yield { status: 'done' as const, ...ledger.refund(key as string, input) };
        },
      }),
      { sideEffect: true },
    );
    const model = interruptedModel((step) => (step === 0 ? callRefund('c1', { orderId: 'o_1', amount: 5 }) : { text: 'done' }));
    const result = await runDurable({ runId, journal, model: model.model, tools: { refund }, prompt: 'x' });
    expect(result.status).toBe('completed');
    expect(ledger.total).toBe(1);
    expect(seenAtFirstPull).toContain('tool-call-start');
    const end = (await journal.events(runId)).find((e) => e.type === 'tool-call-end');
    expect(end).toMatchObject({ output: { status: 'done', refundId: 'r_o_1' } });
    expect(JSON.stringify(model.prompts.at(-1))).toContain('r_o_1');
  });

  it('a policy that denied a call and says yes on the resume: the denial is journaled and replayed, the refund never runs', async () => {
    const runId = uniqueRunId();
    const ledger = new Ledger();
    let allow = false;
    const toolApproval = () => (allow ? ({ type: 'approved' } as const) : ({ type: 'denied', reason: 'over the limit' } as const));
    const tools = { refund: refundTool(ledger) };
    const script = (step: number): ScriptedStep => (step === 0 ? callRefund('c1', { orderId: 'o_1', amount: 900 }) : { text: 'No refund.' });
    await failed(runDurable({ runId, journal, model: interruptedModel(script, 1).model, tools, toolApproval, prompt: 'x' }));
    const decision = (await journal.events(runId)).find((e) => e.type === 'tool-approval-response');
    expect(decision).toMatchObject({ toolCallId: 'c1', approved: false, by: 'policy', reason: 'over the limit', policy: { toolName: 'refund' } });

    allow = true;
    const resumed = interruptedModel(script);
    expect((await runDurable({ runId, journal, model: resumed.model, tools, toolApproval, prompt: 'x' })).status).toBe('completed');
    expect(ledger.total).toBe(0);
    expect(JSON.stringify(resumed.prompts.at(-1))).toContain('over the limit');
  });

  for (const decided of [{ type: 'denied' } as const, { type: 'approved', reason: 'small amount' } as const]) {
    it(`a policy's ${decided.type} (${'reason' in decided ? 'with' : 'without'} a reason) replays exactly as given: the next step is asked the same, even with strictReplay`, async () => {
      const runId = uniqueRunId();
      const ledger = new Ledger();
      const tools = { refund: refundTool(ledger) };
      const script = (step: number): ScriptedStep => (step === 0 ? callRefund('c1', { orderId: 'o_1', amount: 5 }) : { text: 'Done.' });
      const toolApproval = () => decided;
      expect((await runDurable({ runId, journal, model: interruptedModel(script).model, tools, toolApproval, prompt: 'x' })).status).toBe('completed');
      const replay = interruptedModel(script);
      const result = await runDurable({ runId, journal, model: replay.model, tools, toolApproval, prompt: 'x', strictReplay: true });
      expect(result.status).toBe('completed');
      expect(replay.calls()).toBe(0);
      expect(ledger.total).toBe(decided.type === 'approved' ? 1 : 0);
      expect((await journal.events(runId)).filter((e) => e.type === 'replay-mismatch')).toEqual([]);
    });
  }

  it("a side effect that died in flight is blocked on resume even when the policy answers 'approved': a policy never bypasses the unknown-outcome rule", async () => {
    const runId = uniqueRunId();
    await leaveRefundInFlight(journal, runId);
    const agent = refundAgent({ sideEffect: true });
    const error = await failed(
      runDurable({
        runId,
        journal,
        model: agent.scripted.model,
        tools: agent.tools,
        toolApproval: () => ({ type: 'approved' }) as const,
        prompt: 'Refund o_17',
      }),
    );
    expect(error).toMatchObject({ name: 'SideEffectRetryBlockedError', toolCallId: 'call-refund' });
    expect(agent.ledger.total).toBe(0);
  });

  it("a repaired call under 'args': the repair runs once, and the resume keys and runs nothing again", async () => {
    const runId = uniqueRunId();
    const ledger = new Ledger();
    let repairs = 0;
    const repairToolCall = async ({ toolCall }: { toolCall: { toolCallId: string; toolName: string; input: string } }) => {
      repairs += 1;
      // A repair that is itself a model call: another answer each time.
      return { ...toolCall, input: JSON.stringify({ orderId: 'o_1', amount: 40 + repairs }) };
    };
    const tools = { refund: refundTool(ledger, { sideEffect: true, idempotency: 'args' }) };
    const script = (step: number): ScriptedStep => (step === 0 ? callRefund('c1', { orderId: 'o_1', amount: 'forty' }) : { text: 'Refunded.' });
    await failed(
      runDurable({ runId, journal, model: interruptedModel(script, 1).model, tools, experimental_repairToolCall: repairToolCall as never, prompt: 'x' }),
    );
    expect(repairs).toBe(1);
    expect(ledger.total).toBe(1);
    expect((await journal.events(runId)).find((e) => e.type === 'tool-call-repair')).toMatchObject({ step: 0, toolCallId: 'c1' });

    const result = await runDurable({
      runId,
      journal,
      model: interruptedModel(script).model,
      tools,
      experimental_repairToolCall: repairToolCall as never,
      prompt: 'x',
    });
    expect(result.status).toBe('completed');
    expect(repairs).toBe(1);
    expect(ledger.total).toBe(1);
    expect([...ledger.executions.values()]).toEqual([1]);
  });

  it("a computed zod default under 'args': the resume uses the recorded arguments and key, and is not a divergence", async () => {
    const runId = uniqueRunId();
    const ledger = new Ledger();
    const schema = z.object({ orderId: z.string(), amount: z.number(), requestedAt: z.string().default(() => new Date().toISOString()) });
    const tools = () => ({ refund: refundTool(ledger, { sideEffect: true, idempotency: 'args' }, schema) });
    const script = (step: number): ScriptedStep => (step === 0 ? callRefund('c1', { orderId: 'o_1', amount: 40 }) : { text: 'Refunded.' });
    await failed(runDurable({ runId, journal, model: interruptedModel(script, 1).model, tools: tools(), prompt: 'x' }));
    await new Promise((resolve) => setTimeout(resolve, 5)); // another millisecond: another default
    const result = await runDurable({ runId, journal, model: interruptedModel(script).model, tools: tools(), prompt: 'x', strictReplay: true });
    expect(result.status).toBe('completed');
    expect(ledger.total).toBe(1);
  });

  it('computed defaults, refinements and transforms do not make a tool look changed; a real schema change still does', async () => {
    const runId = uniqueRunId();
    const ledger = new Ledger();
    const schema = () =>
      z.object({
        orderId: z.string().refine((v) => v.startsWith('o_')),
        amount: z.number().transform((v) => Math.round(v)),
        at: z.string().default(() => `${Math.random()}`),
        nested: z.object({ seed: z.number().default(() => Math.random()) }).optional(),
      });
    const script = (step: number): ScriptedStep => (step === 0 ? { text: 'nothing to do' } : { text: 'x' });
    await runDurable({
      runId,
      journal,
      model: interruptedModel(script).model,
      tools: { refund: refundTool(ledger, { sideEffect: true }, schema()) },
      prompt: 'x',
    });
    expect(
      (
        await runDurable({
          runId,
          journal,
          model: interruptedModel(script).model,
          tools: { refund: refundTool(ledger, { sideEffect: true }, schema()) },
          prompt: 'x',
        })
      ).status,
    ).toBe('completed');
    const changed = z.object({ orderId: z.string(), amount: z.string() });
    await expect(
      runDurable({ runId, journal, model: interruptedModel(script).model, tools: { refund: refundTool(ledger, { sideEffect: true }, changed) }, prompt: 'x' }),
    ).rejects.toMatchObject({
      name: 'RunDivergedError',
      differences: [expect.objectContaining({ field: 'tool schema: refund' })],
    });
  });

  it("equal-argument twins under 'args' in one step: when the first one's outcome is unknown, the second does not run on a guess", async () => {
    const runId = uniqueRunId();
    let executions = 0;
    const note = gnlTool(
      tool({
        inputSchema: z.object({ text: z.string() }),
        execute: async (): Promise<{ ok: true }> => {
          executions += 1;
          throw new Error('timed out after sending');
        },
      }),
      { sideEffect: true, idempotency: 'args', retryDelayMs: 1 },
    );
    const script = (step: number): ScriptedStep =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'n1', toolName: 'note', input: { text: 'call back' } },
              { toolCallId: 'n2', toolName: 'note', input: { text: 'call back' } },
            ],
          }
        : { text: 'ok' };
    const error = await failed(runDurable({ runId, journal, model: interruptedModel(script).model, tools: { note }, prompt: 'x' }));
    expect(error).toMatchObject({ name: 'SideEffectRetryBlockedError', toolCallId: 'n1' });
    expect(executions).toBe(1);
    expect((await journal.getRun(runId))?.pending).toEqual([expect.objectContaining({ kind: 'side-effect', toolCallId: 'n1' })]);
  });

  it('equal-argument twins whose first call threw and whose check says done: the twin gets the checked result', async () => {
    const runId = uniqueRunId();
    const store = new Map<string, { noteId: string }>();
    let executions = 0;
    const note = gnlTool(
      tool({
        inputSchema: z.object({ text: z.string() }),
        execute: async (_input, { idempotencyKey: key }): Promise<{ noteId: string }> => {
          executions += 1;
          store.set(key as string, { noteId: 'n_1' });
          throw new Error('connection reset after the write');
        },
      }),
      {
        sideEffect: true,
        idempotency: 'args',
        retryDelayMs: 1,
        check: async ({ idempotencyKey: key }) => (store.has(key) ? { done: true, output: store.get(key) as { noteId: string } } : { done: false }),
      },
    );
    const script = (step: number): ScriptedStep =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'n1', toolName: 'note', input: { text: 'call back' } },
              { toolCallId: 'n2', toolName: 'note', input: { text: 'call back' } },
            ],
          }
        : { text: 'ok' };
    const model = interruptedModel(script);
    expect((await runDurable({ runId, journal, model: model.model, tools: { note }, prompt: 'x' })).status).toBe('completed');
    expect(executions).toBe(1);
    const ends = (await journal.events(runId)).filter((e) => e.type === 'tool-call-end');
    expect(ends.map((e) => [e.toolCallId, e.source])).toEqual([
      ['n1', 'check'],
      ['n2', 'deduplicated'],
    ]);
  });

  it('a tool without execute: the run waits for its result, provideToolResult answers it through the journal, the resume goes on', async () => {
    const runId = uniqueRunId();
    const askUser = tool({ inputSchema: z.object({ question: z.string() }) });
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'q1', toolName: 'askUser', input: { question: 'Which order?' } }] } : { text: 'Thanks.' };
    const first = interruptedModel(script);
    const waiting = await runDurable({ runId, journal, model: first.model, tools: { askUser }, prompt: 'x' });
    expect(waiting).toMatchObject({
      status: 'waiting-tool-result',
      pending: [expect.objectContaining({ toolCallId: 'q1', toolName: 'askUser', input: { question: 'Which order?' } })],
    });
    const run = await journal.getRun(runId);
    expect(run?.status).toBe('waiting-tool-result');
    expect(run?.pending).toEqual([expect.objectContaining({ kind: 'tool-result', toolCallId: 'q1' })]);
    // Asked again before anything is provided: the same answer, nothing appended, the model not called.
    const again = await runDurable({ runId, journal, model: first.model, tools: { askUser }, prompt: 'x' });
    expect(again.status).toBe('waiting-tool-result');
    expect((await journal.getRun(runId))?.lastSeq).toBe(run?.lastSeq);

    await journal.provideToolResult({ runId, toolCallId: 'q1', output: { answer: 'o_17' }, by: 'ada@acme' });
    const resumed = interruptedModel(script);
    const result = await runDurable({ runId, journal, model: resumed.model, tools: { askUser }, prompt: 'x' });
    expect(result.status).toBe('completed');
    expect(first.calls() + resumed.calls()).toBe(2);
    expect(JSON.stringify(resumed.prompts.at(-1))).toContain('o_17');
    // The provided result names no arguments: the replay is not a mismatch, and the prompt keeps the call's own.
    expect((await journal.events(runId)).filter((e) => e.type === 'replay-mismatch')).toEqual([]);
    expect(JSON.stringify(resumed.prompts.at(-1))).toContain('Which order?');
  });
});
