/**
 * The AI SDK's telemetry integrations hear what ran, not what was replayed (replay-telemetry.ts): a run
 * resumed after an approval reports only its new step and the call that executed; a completed run
 * replayed whole reports no step and no call; integrations given per call and registered globally alike.
 */
import { registerTelemetry, type Telemetry } from 'ai';
import { afterEach, expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { runDurable } from '../index';
import { replayDurable } from '../run/run-durable';

/** A real integration: every lifecycle event it receives, by name (step number or tool call id where the event has one). */
function recorder() {
  const heard: string[] = [];
  const note = (name: string) => (event: object) => {
    const { stepNumber, toolCall } = event as { stepNumber?: number; toolCall?: { toolCallId: string } };
    const detail = stepNumber ?? toolCall?.toolCallId;
    heard.push(detail === undefined ? name : `${name}:${detail}`);
  };
  const integration: Telemetry = {
    onStart: () => void heard.push('start'),
    onStepStart: note('stepStart'),
    onLanguageModelCallStart: note('modelCallStart'),
    onLanguageModelCallEnd: note('modelCallEnd'),
    onToolExecutionStart: note('toolStart'),
    onToolExecutionEnd: note('toolEnd'),
    onStepEnd: note('stepEnd'),
    onEnd: () => void heard.push('end'),
  };
  return { heard, integration };
}

afterEach(() => {
  (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: Telemetry[] }).AI_SDK_TELEMETRY_INTEGRATIONS = [];
});

describeEachJournal('telemetry integrations and replay', (target) => {
  const { journal } = target.open();

  it('approved and resumed: the resume reports step 1 and the refund it executed, never step 0 again', async () => {
    const runId = uniqueRunId('otel-sdk');
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const first = recorder();
    const call = (telemetryOf: ReturnType<typeof recorder>) =>
      runDurable({
        runId,
        journal,
        model: agent.scripted.model,
        tools: agent.tools,
        prompt: 'Refund o_17',
        telemetry: { integrations: [telemetryOf.integration] },
      });
    expect((await call(first)).status).toBe('waiting-approval');
    expect(first.heard).toEqual(['start', 'stepStart:0', 'modelCallStart', 'modelCallEnd', 'stepEnd:0', 'end']);

    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice' });
    const resumed = recorder();
    expect((await call(resumed)).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    // Step 0 came from the journal: not reported. Its refund executed now: reported. Step 1 was asked: reported.
    expect(resumed.heard).toEqual([
      'start',
      'toolStart:call-refund',
      'toolEnd:call-refund',
      'stepStart:1',
      'modelCallStart',
      'modelCallEnd',
      'stepEnd:1',
      'end',
    ]);
  });

  it('a completed run replayed whole (replayDurable) reports its operation and nothing it replayed; a registered integration too', async () => {
    const runId = uniqueRunId('otel-sdk-replay');
    const agent = refundAgent({ sideEffect: true });
    const run = { runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' };
    expect((await runDurable(run)).status).toBe('completed');
    const global = recorder();
    registerTelemetry(global.integration);
    expect((await replayDurable(run)).status).toBe('completed');
    expect(global.heard).toEqual(['start', 'end']);
    expect(agent.ledger.total).toBe(1);
    expect(agent.scripted.calls()).toBe(2);
  });

  it('telemetry off for the call stays off: the integration hears nothing', async () => {
    const runId = uniqueRunId('otel-sdk-off');
    const agent = refundAgent({ sideEffect: true });
    const off = recorder();
    const result = await runDurable({
      runId,
      journal,
      model: agent.scripted.model,
      tools: agent.tools,
      prompt: 'Refund o_17',
      telemetry: { isEnabled: false, integrations: [off.integration] },
    });
    expect(result.status).toBe('completed');
    expect(off.heard).toEqual([]);
  });
});
