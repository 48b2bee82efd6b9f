/**
 * Run-level retries on real journals: the in-process executor, the real @ai-sdk/openai provider against
 * a real HTTP server that answers 503 (or is not listening yet: ECONNREFUSED) for the first invocations,
 * and the demo's outside service as the judge of side effects. The SDK's own retries are off
 * (maxRetries: 0), so every refused model call is one failed invocation.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createOpenAI } from '@ai-sdk/openai';
import { type LanguageModel, stepCountIs, tool } from 'ai';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentRegistry, defineAgent, type RetryPolicyInput } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { supportTools } from '@/lib/demo/support-tools';
import { gnlTool, type RecordedEvent, RunState, runTimers } from '@/lib/durable';
import { type ChatCompletionsServer, type ScriptedAnswer, startChatCompletionsServer } from '@/tests/support/chat-completions-server';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { Executor, type ExecutorEvent, queueEntry, resumeRun } from './index';

/** The support agent's work, step by step: look up, open a ticket, email, answer. */
const SCRIPT = (step: number): ScriptedAnswer => {
  if (step === 0) return { toolCalls: [{ id: 'call_lookup', name: 'lookupCustomer', arguments: { customerId: 'c_42' } }] };
  if (step === 1)
    return { toolCalls: [{ id: 'call_ticket', name: 'createTicket', arguments: { customerId: 'c_42', subject: 'Order o_17', message: 'Where is it?' } }] };
  if (step === 2)
    return { toolCalls: [{ id: 'call_email', name: 'sendEmail', arguments: { to: 'c42@example.com', subject: 'Order o_17', body: 'On its way.' } }] };
  return { text: 'Answered.' };
};

const FAST: RetryPolicyInput = { attempts: 3, initialDelayMs: 40, maxDelayMs: 200 };

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describeEachStorage('run-level retries', (holder) => {
  let service: OutsideService;
  let server: ChatCompletionsServer | undefined;
  let executor: Executor | undefined;
  const events: ExecutorEvent[] = [];
  // Opened (and migrated) first: on a loaded machine PGlite can take a minute to start, not charged to the first test.
  beforeAll(() => holder.storage.database().then(() => undefined), 300_000);
  beforeAll(async () => {
    service = await startOutsideService();
  });
  afterEach(async () => {
    await executor?.stop({ graceMs: 5_000 });
    executor = undefined;
    await server?.close();
    server = undefined;
    events.length = 0;
  });
  afterAll(() => service.close());

  const agentWith = (name: string, model: LanguageModel, retry: RetryPolicyInput, extraTools = {}) =>
    defineAgent({
      name,
      model,
      tools: { ...supportTools({ serviceUrl: service.url }), ...extraTools },
      system: 'Support.',
      stopWhen: stepCountIs(8),
      maxRetries: 0,
      retry,
    });
  const executorFor = (agent: ReturnType<typeof agentWith>) => {
    executor = new Executor({
      storage: holder.storage,
      registry: createAgentRegistry([agent]),
      leaseMs: 5_000,
      pollMs: 20,
      onEvent: (e) => events.push(e),
    }).start();
    return executor;
  };
  const settled = async (runId: string, outcome: string) => {
    for (let i = 0; i < 600; i++) {
      const entry = await queueEntry(runId, { storage: holder.storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && entry.outcome === outcome) return entry;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} did not settle as ${outcome}: ${JSON.stringify(await queueEntry(runId, { storage: holder.storage }))}`);
  };
  const journal = () => holder.storage.runs;
  const retriesOf = (events: RecordedEvent[]) => new RunState(events).retries;
  const count = (events: RecordedEvent[], type: string) => events.filter((e) => e.type === type).length;

  it('a provider answering 503 for the first two invocations: retried with backoff, each attempt journaled, completed, each side effect once', async () => {
    server = await startChatCompletionsServer(SCRIPT);
    server.fail(2, { status: 503 }, { status: 503 });
    const before = service.stats();
    const { runId } = await executorFor(agentWith('flaky-503', server.model(), FAST)).startRun({ agent: 'flaky-503', input: { prompt: 'Where is o_17?' } });
    await settled(runId, 'completed');

    const recorded = await journal().events(runId);
    const retries = retriesOf(recorded);
    expect(retries.map((r) => [r.attempt, r.attempts])).toEqual([
      [1, 3],
      [2, 3],
    ]);
    for (const retry of retries) {
      expect(retry.by).toBe(executor?.owner);
      expect(retry.error.name).toMatch(/APICallError|RetryError/);
      expect(retry.retryAt).toEqual(expect.any(String));
    }
    // Each retry follows its invocation's run-fail and precedes the next invocation's run-resume.
    const types = recorded.map((e) => e.type).filter((t) => ['run-fail', 'run-retry', 'run-resume', 'run-complete'].includes(t));
    expect(types).toEqual(['run-resume', 'run-fail', 'run-retry', 'run-resume', 'run-fail', 'run-retry', 'run-resume', 'run-complete']);
    expect([server.requests(2), server.answered(2)]).toEqual([3, 1]);
    expect([server.answered(0), server.answered(1)]).toEqual([1, 1]);
    const after = service.stats();
    expect(after.tickets.performed - before.tickets.performed).toBe(1);
    expect(after.emails.performed - before.emails.performed).toBe(1);
    expect(runTimers(new RunState(recorded))).toEqual([]);
    expect(events.filter((e) => e.type === 'retry' && e.runId === runId)).toHaveLength(2);
  });

  it('a provider not listening yet (ECONNREFUSED): retried until it is up, then completed once', async () => {
    const port = await freePort();
    const model = createOpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'test-key' }).chat('scripted-chat');
    const before = service.stats();
    const exec = executorFor(agentWith('flaky-refused', model, { attempts: 10, initialDelayMs: 200, maxDelayMs: 400 }));
    const firstRetry = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (events.some((e) => e.type === 'retry')) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    const { runId } = await exec.startRun({ agent: 'flaky-refused', input: { prompt: 'Where is o_17?' } });
    await firstRetry;
    server = await startChatCompletionsServer(SCRIPT, { port });
    await settled(runId, 'completed');

    const recorded = await journal().events(runId);
    const retries = retriesOf(recorded);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries.map((r) => r.attempt)).toEqual(retries.map((_, i) => i + 1));
    expect(retries.every((r) => r.retryAt !== undefined)).toBe(true);
    expect(count(recorded, 'run-complete')).toBe(1);
    expect(server.answered(0)).toBe(1);
    const after = service.stats();
    expect(after.tickets.performed - before.tickets.performed).toBe(1);
    expect(after.emails.performed - before.emails.performed).toBe(1);
  });

  it('attempts used up: the run stays failed for a person with the count journaled; a person’s resume starts afresh and completes', async () => {
    server = await startChatCompletionsServer(SCRIPT);
    server.fail(1, { status: 503 }, { status: 502 }, { status: 500 });
    const before = service.stats();
    const { runId } = await executorFor(agentWith('flaky-exhausted', server.model(), FAST)).startRun({
      agent: 'flaky-exhausted',
      input: { prompt: 'Where is o_17?' },
    });
    const entry = await settled(runId, 'failed');
    expect(entry.notBefore).toBeNull();

    const recorded = await journal().events(runId);
    const state = new RunState(recorded);
    expect(state.status).toBe('failed');
    expect(state.retries.map((r) => [r.attempt, r.attempts, r.retryAt !== undefined])).toEqual([
      [1, 3, true],
      [2, 3, true],
      [3, 3, false],
    ]);
    expect(state.retryStreak).toBe(3);
    expect(runTimers(state)).toEqual([]);
    // startRun records run-start; each of the three invocations begins with its run-resume.
    expect(count(recorded, 'run-resume')).toBe(3);
    expect(server.requests(1)).toBe(3);
    expect(service.stats().tickets.performed - before.tickets.performed).toBe(0);

    await resumeRun(runId, { storage: holder.storage, by: 'ops@example.com', reason: 'provider is back' });
    executor?.kick();
    await settled(runId, 'completed');
    const after = new RunState(await journal().events(runId));
    expect(after.retryStreak).toBe(0);
    expect(after.retries).toHaveLength(3);
    expect(service.stats().tickets.performed - before.tickets.performed).toBe(1);
    expect(service.stats().emails.performed - before.emails.performed).toBe(1);
  });

  it('never retried: a tool’s own error (even a refused connection), a blocked side effect, a provider’s final 400', async () => {
    const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    // Safe to send again, so the tool's own retries run; past them the run fails with ToolCallFailedError.
    const broken = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string() }),
        execute: async (): Promise<{ ok: true }> => {
          throw refused();
        },
      }),
      { sideEffect: true, retrySafe: true, maxRetries: 0 },
    );
    server = await startChatCompletionsServer((step) =>
      step === 0 ? { toolCalls: [{ id: 'call_x', name: 'trackOrder', arguments: { orderId: 'o_17' } }] } : SCRIPT(step),
    );
    const exec = executorFor(agentWith('tool-breaks', server.model(), FAST, { trackOrder: broken }));
    const { runId } = await exec.startRun({ agent: 'tool-breaks', input: { prompt: 'Track o_17' } });
    await settled(runId, 'failed');
    const recorded = await journal().events(runId);
    expect(new RunState(recorded).failure?.name).toBe('ToolCallFailedError');
    expect(count(recorded, 'run-retry')).toBe(0);
    expect(count(recorded, 'run-resume')).toBe(1);
    await executor?.stop({ graceMs: 5_000 });
    await server.close();

    // A side effect that threw with no way to know whether it acted: blocked for a person, never retried.
    const unknown = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string() }),
        execute: async (): Promise<{ ok: true }> => {
          throw refused();
        },
      }),
      { sideEffect: true, maxRetries: 0 },
    );
    server = await startChatCompletionsServer((step) =>
      step === 0 ? { toolCalls: [{ id: 'call_y', name: 'chargeOrder', arguments: { orderId: 'o_17' } }] } : SCRIPT(step),
    );
    const execBlocked = executorFor(agentWith('side-effect-unknown', server.model(), FAST, { chargeOrder: unknown }));
    const blocked = await execBlocked.startRun({ agent: 'side-effect-unknown', input: { prompt: 'Charge o_17' } });
    await settled(blocked.runId, 'blocked');
    const blockedEvents = await journal().events(blocked.runId);
    expect(new RunState(blockedEvents).status).toBe('blocked');
    expect(count(blockedEvents, 'run-retry')).toBe(0);
    expect(count(blockedEvents, 'tool-call-start')).toBe(1);
    await executor?.stop({ graceMs: 5_000 });
    await server.close();

    server = await startChatCompletionsServer(SCRIPT);
    server.fail(0, { status: 400 });
    const exec400 = executorFor(agentWith('bad-request', server.model(), FAST));
    const bad = await exec400.startRun({ agent: 'bad-request', input: { prompt: 'Where is o_17?' } });
    await settled(bad.runId, 'failed');
    const badEvents = await journal().events(bad.runId);
    expect(count(badEvents, 'run-fail')).toBe(1);
    expect(count(badEvents, 'run-retry')).toBe(0);
    expect(server.requests(0)).toBe(1);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
  });
});
