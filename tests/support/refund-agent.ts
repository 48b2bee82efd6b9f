/**
 * The refund agent the core's tests share: look up the order (read-only), refund it (a side effect,
 * counted by an in-process ledger that plays the outside service for unit tests), reply.
 * The crash suite uses a real HTTP service instead (e2e/crash).
 */
import { tool } from 'ai';
import { z } from 'zod';
import { type GnlToolOptions, gnlTool, type Journal } from '@/lib/durable';
import { DEFAULT_KEY_SCHEME, idempotencyKey } from '@/lib/durable';
import { type ScriptedStep, scriptedModel, stepResult } from './scripted-model';

export const REFUND_INPUT = { orderId: 'o_17', amount: 40 };

export class Ledger {
  /** Refunds really executed, by idempotency key. */
  readonly executions = new Map<string, number>();
  get total(): number {
    return [...this.executions.values()].reduce((a, b) => a + b, 0);
  }
  refund(key: string, input: { orderId: string; amount: number }) {
    this.executions.set(key, (this.executions.get(key) ?? 0) + 1);
    return { refundId: `r_${input.orderId}`, amount: input.amount };
  }
}

export function refundScript(step: number): ScriptedStep {
  if (step === 0) return { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: REFUND_INPUT }] };
  return { text: 'Refunded 40 for o_17.' };
}

export function refundAgent(options: GnlToolOptions<{ orderId: string; amount: number }, any> = { sideEffect: true }, script = refundScript) {
  const ledger = new Ledger();
  const keys: string[] = [];
  const scripted = scriptedModel(script);
  const refund = gnlTool(
    tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      execute: async (input, { idempotencyKey }) => {
        keys.push(idempotencyKey as string);
        return ledger.refund(idempotencyKey as string, input);
      },
    }),
    options,
  );
  return { ledger, keys, scripted, tools: { refund } };
}

/**
 * Writes what a process killed inside refund's execute leaves behind: the model step that asked for the
 * refund and the refund's durable start record, with no outcome. Through the real journal API.
 */
export async function leaveRefundInFlight(journal: Journal, runId: string, calls = [{ toolCallId: 'call-refund', input: REFUND_INPUT as unknown }]) {
  const hold = await journal.hold(runId);
  try {
    // Keyed like a run runDurable starts now (its default scheme), so a resume finds these starts by their keys.
    await hold.create({ prompt: 'Refund o_17', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['refund'], keyScheme: DEFAULT_KEY_SCHEME });
    await hold.append([
      {
        type: 'model-step',
        step: 0,
        provider: 'scripted',
        modelId: 'scripted-v1',
        latencyMs: 1,
        result: stepResult({ toolCalls: calls.map((c) => ({ ...c, toolName: 'refund' })) }, 0),
      },
      ...calls.map((c) => ({
        type: 'tool-call-start' as const,
        toolCallId: c.toolCallId,
        toolName: 'refund',
        input: c.input,
        idempotencyKey: idempotencyKey({ kind: 'call', runId, toolCallId: c.toolCallId, toolName: 'refund' }),
        attempt: 1,
        sideEffect: true,
      })),
    ]);
  } finally {
    await hold.release();
  }
}
