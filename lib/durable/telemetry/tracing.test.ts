/**
 * The runtime's own OpenTelemetry spans (tracing.ts), read from the OpenTelemetry SDK's in-memory
 * exporter: per invocation, model step and tool call; a run resumed after a stop continues the trace its
 * first invocation recorded in the journal; replayed steps and calls say so; no tracer provider, no
 * trace in the journal.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { defineWorkflow, runDurable, runWorkflow } from '../index';
import { z } from 'zod';
import { ATTR } from './tracing';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

/** The finished spans of a run (the processor hands them over asynchronously: flushed first). */
const spansOf = async (runId: string, name?: string): Promise<ReadableSpan[]> => {
  await provider.forceFlush();
  return finished(runId, name);
};
const finished = (runId: string, name?: string): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.attributes[ATTR.runId] === runId && (name === undefined || s.name === name));
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describeEachJournal('tracing', (target) => {
  const { journal } = target.open();

  it('one run, approved between two invocations: one trace; each invocation recorded in the journal; replayed work says so', async () => {
    const runId = uniqueRunId('trace');
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const call = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });

    // The caller's own span: the first invocation is its child.
    const request = trace.getTracer('test').startSpan('http request');
    expect((await context.with(trace.setSpan(context.active(), request), call)).status).toBe('waiting-approval');
    request.end();
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice' });
    const second = trace.getTracer('test').startSpan('queue job');
    expect((await context.with(trace.setSpan(context.active(), second), call)).status).toBe('completed');
    second.end();
    expect(agent.ledger.total).toBe(1);

    const invocations = (await spansOf(runId, 'gnl.invocation')).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    expect(invocations.map((s) => [s.attributes[ATTR.invocation], s.attributes[ATTR.status]])).toEqual([
      ['start', 'waiting-approval'],
      ['resume', 'completed'],
    ]);
    const [first, resumed] = invocations as [ReadableSpan, ReadableSpan];
    expect(first.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(parentOf(first)).toBe(request.spanContext().spanId);
    // The resume continues the run's trace (the first invocation's span is its parent), and links the job that called it.
    expect(resumed.spanContext().traceId).toBe(first.spanContext().traceId);
    expect(parentOf(resumed)).toBe(first.spanContext().spanId);
    expect(resumed.links.map((l) => l.context.spanId)).toEqual([second.spanContext().spanId]);

    // The journal names each invocation's span.
    const events = await journal.events(runId);
    const traced = events.filter((e) => e.type === 'run-start' || e.type === 'run-resume').map((e) => (e as { trace?: unknown }).trace);
    expect(traced).toEqual([
      { traceId: first.spanContext().traceId, spanId: first.spanContext().spanId },
      { traceId: resumed.spanContext().traceId, spanId: resumed.spanContext().spanId },
    ]);

    // Model steps: step 0 asked in the first invocation, replayed (no time) in the second; step 1 asked there.
    const steps = (await spansOf(runId, 'gnl.model_step')).map((s) => ({
      invocation: parentOf(s),
      step: s.attributes[ATTR.step],
      replayed: s.attributes[ATTR.replayed],
      outcome: s.attributes[ATTR.outcome],
    }));
    expect(steps).toEqual(
      expect.arrayContaining([
        { invocation: first.spanContext().spanId, step: 0, replayed: false, outcome: 'recorded' },
        { invocation: resumed.spanContext().spanId, step: 0, replayed: true, outcome: 'replayed' },
        { invocation: resumed.spanContext().spanId, step: 1, replayed: false, outcome: 'recorded' },
      ]),
    );
    expect(steps).toHaveLength(3);

    // The refund: executed once, in the second invocation, with its key and attempt.
    const [toolCall, ...more] = await spansOf(runId, 'gnl.tool_call');
    expect(more).toHaveLength(0);
    expect(parentOf(toolCall as ReadableSpan)).toBe(resumed.spanContext().spanId);
    expect(toolCall?.attributes).toMatchObject({
      [ATTR.toolName]: 'refund',
      [ATTR.toolCallId]: 'call-refund',
      [ATTR.idempotencyKey]: agent.keys[0],
      [ATTR.sideEffect]: true,
      [ATTR.attempt]: 1,
      [ATTR.outcome]: 'executed',
    });

    // A completed run answered from its record: one more invocation span in the same trace, nothing else.
    exporter.reset();
    expect((await call()).status).toBe('completed');
    const answers = await spansOf(runId);
    expect(answers.map((s) => [s.name, s.attributes[ATTR.invocation], s.spanContext().traceId, parentOf(s)])).toEqual([
      ['gnl.invocation', 'answer', first.spanContext().traceId, first.spanContext().spanId],
    ]);
  });

  it('a read-only tool that throws: its span records the error; the model sees it and the run completes, in one trace', async () => {
    const runId = uniqueRunId('trace-fail');
    const agent = refundAgent({ sideEffect: false, maxRetries: 0 });
    const failing = { refund: { ...agent.tools.refund, execute: async () => Promise.reject(new Error('lookup service down')) } };
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: failing as typeof agent.tools, prompt: 'Refund o_17' });
    expect(result.status).toBe('completed');
    const [toolCall] = await spansOf(runId, 'gnl.tool_call');
    const [invocation, ...others] = await spansOf(runId, 'gnl.invocation');
    expect(others).toHaveLength(0);
    expect(toolCall?.status).toEqual({ code: 2, message: 'lookup service down' }); // SpanStatusCode.ERROR
    expect(toolCall?.events.map((e) => e.name)).toEqual(['exception']);
    expect(toolCall?.spanContext().traceId).toBe(invocation?.spanContext().traceId);
    expect(parentOf(toolCall as ReadableSpan)).toBe(invocation?.spanContext().spanId);
    expect(invocation?.attributes[ATTR.status]).toBe('completed');
  });

  it('a workflow: each invocation a span in one trace (a sleep between them), each step a tool-call span under its invocation', async () => {
    const runId = uniqueRunId('trace-wf');
    let now = Date.parse('2026-12-04T10:00:00Z');
    const flow = defineWorkflow({
      name: 'traced',
      input: z.object({}),
      run: async (wf) => {
        const a = await wf.step('first', { sideEffect: true, retrySafe: true }, () => 1);
        await wf.sleep('pause', 60_000);
        const b = await wf.step('second', () => 2);
        return a + b;
      },
    });
    const invoke = () => runWorkflow({ workflow: flow, runId, input: {}, journal, clock: () => now });
    expect((await invoke()).status).toBe('waiting');
    now += 60_000;
    expect(await invoke()).toMatchObject({ status: 'completed', output: 3 });
    const invocations = (await spansOf(runId, 'gnl.invocation')).sort((x, y) => x.startTime[0] - y.startTime[0] || x.startTime[1] - y.startTime[1]);
    expect(invocations.map((span) => [span.attributes[ATTR.invocation], span.attributes[ATTR.status], span.attributes[ATTR.agent]])).toEqual([
      ['start', 'waiting', 'traced'],
      ['resume', 'completed', 'traced'],
    ]);
    const [first, second] = invocations as [ReadableSpan, ReadableSpan];
    expect(second.spanContext().traceId).toBe(first.spanContext().traceId);
    const steps = await spansOf(runId, 'gnl.tool_call');
    const byName = Object.fromEntries(steps.map((span) => [`${span.attributes[ATTR.toolName]}:${span.attributes[ATTR.outcome]}`, parentOf(span)]));
    expect(byName).toMatchObject({ 'first:executed': first.spanContext().spanId, 'second:executed': second.spanContext().spanId });
    expect(steps.every((span) => span.spanContext().traceId === first.spanContext().traceId)).toBe(true);
  });
});

describeEachJournal('tracing without a tracer provider', (target) => {
  const { journal } = target.open();

  it('records no trace in the journal (no-op spans have no valid context)', async () => {
    trace.disable();
    try {
      const runId = uniqueRunId('untraced');
      const agent = refundAgent({ sideEffect: true });
      expect((await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' })).status).toBe('completed');
      const start = (await journal.events(runId)).find((e) => e.type === 'run-start');
      expect(start).toBeDefined();
      expect(start && 'trace' in start).toBe(false);
    } finally {
      trace.setGlobalTracerProvider(provider);
    }
  });
});
