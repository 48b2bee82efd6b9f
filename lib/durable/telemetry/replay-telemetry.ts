/**
 * The AI SDK's telemetry integrations (`registerTelemetry`, or a call's `telemetry.integrations`) see a
 * resumed run's loop: every recorded step and every recorded tool call passes through the SDK again, and
 * without this an integration (`@ai-sdk/otel`'s spans, a cost logger) would report them as if the model
 * had been asked again and the tool had run again. An invocation therefore hands the SDK its integrations
 * wrapped: a replayed step's events (step start and end, model call start and end) and a replayed tool
 * call's (execution start and end) are not passed on; everything else is, unchanged. The SDK's
 * `ai:telemetry` tracing channel cannot be filtered this way (docs/operations.md, "Traces").
 */
import type { Telemetry } from 'ai';
import type { RunSession } from '../run/run-session';

type Integration = Telemetry & Record<string, unknown>;

const STEP_EVENTS = new Set(['onStepStart', 'onLanguageModelCallStart', 'onLanguageModelCallEnd', 'onStepEnd']);
const TOOL_EVENTS = new Set(['onToolExecutionStart', 'onToolExecutionEnd']);

/** The integrations the SDK would use for this call (its own, else the registered ones), or none. */
function integrationsOf(telemetry: { integrations?: Telemetry | Telemetry[] } | undefined): Telemetry[] {
  if (telemetry?.integrations !== undefined) return [telemetry.integrations].flat();
  return ((globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: Telemetry[] }).AI_SDK_TELEMETRY_INTEGRATIONS ?? []).slice();
}

/**
 * The `telemetry` setting for the loop: the caller's, with its integrations wrapped so replayed work is not
 * reported. Unchanged when telemetry is off for the call or no integration would receive anything.
 */
export function replayAwareTelemetry(
  telemetry: ({ isEnabled?: boolean; integrations?: Telemetry | Telemetry[] } & Record<string, unknown>) | undefined,
  session: RunSession,
): Record<string, unknown> | undefined {
  if (telemetry?.isEnabled === false) return telemetry;
  const integrations = integrationsOf(telemetry);
  if (integrations.length === 0) return telemetry;
  // The step the SDK's events are about: set by each step start (its model-call events follow it).
  let replayingStep = false;
  // Calls whose result the journal held when this invocation began: their execution replays it.
  const replayedCalls = new Set([...session.state.operations.values()].flatMap((op) => (op.result ? [...op.toolCallIds] : [])));
  const replayedCall = (event: unknown) => {
    const toolCallId = (event as { toolCall?: { toolCallId?: unknown } }).toolCall?.toolCallId;
    return typeof toolCallId === 'string' && replayedCalls.has(toolCallId);
  };
  const wrap = (integration: Telemetry): Telemetry =>
    new Proxy(integration as Integration, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof property !== 'string' || typeof value !== 'function') return value;
        if (!STEP_EVENTS.has(property) && !TOOL_EVENTS.has(property)) return value;
        return (event: unknown) => {
          if (property === 'onStepStart') replayingStep = isRecordedStep(session, event);
          if (STEP_EVENTS.has(property) && replayingStep) return undefined;
          if (TOOL_EVENTS.has(property) && replayedCall(event)) return undefined;
          return (value as (event: unknown) => unknown).call(target, event);
        };
      },
    });
  return { ...telemetry, integrations: integrations.map(wrap) };
}

/** Whether the step starting is in the journal already (a new step is journaled only once its model answered). */
function isRecordedStep(session: RunSession, event: unknown): boolean {
  const stepNumber = (event as { stepNumber?: unknown }).stepNumber;
  return typeof stepNumber === 'number' && session.state.modelSteps[stepNumber] !== undefined;
}
