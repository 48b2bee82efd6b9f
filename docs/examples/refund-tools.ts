/**
 * Guide: My AI SDK tool ran twice after a retry (docs/tool-ran-twice.md).
 * One refund tool and the ways to mark it, each protecting against a different way of running twice.
 * The guide's code blocks are the #region parts of this file (docs/examples/code-blocks.test.ts).
 */
import { tool } from 'ai';
import { z } from 'zod';
import { gnlTool, type Journal } from '@gnldev/durable';

export interface Refund {
  refundId: string;
  orderId: string;
  amount: number;
}

// #region tool
export function refundTool(pspUrl: string, { timeoutMs = 10_000 } = {}) {
  return tool({
    description: 'Refund an order.',
    inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
    execute: async (input, { idempotencyKey }) => {
      const res = await fetch(`${pspUrl}/refunds`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey! },
        body: JSON.stringify(input),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!res.ok) throw new Error(`PSP answered ${res.status}`);
      return (await res.json()) as Refund;
    },
  });
}
// #endregion

type Options = { timeoutMs?: number };

// #region side-effect
// Finished: never executed again. Started with no recorded outcome: never re-run on a guess.
export const refundOnce = (psp: string, o?: Options) =>
  gnlTool(refundTool(psp, o), { sideEffect: true });
// #endregion

// #region args
// The same order and amount is the same refund, whatever call id the model gives it.
export const refundOncePerOrder = (psp: string, o?: Options) =>
  gnlTool(refundTool(psp, o), { sideEffect: true, idempotency: 'args' });
// #endregion

// #region retry-safe
// The PSP deduplicates by Idempotency-Key, so after an unknown outcome the call is sent again
// under the same key: a refund that happened is answered, not repeated.
export const refundRetrySafe = (psp: string, o?: Options) =>
  gnlTool(refundTool(psp, o), { sideEffect: true, retrySafe: true });
// #endregion

// #region check
// After an unknown outcome, ask the PSP what happened under the key before anything runs again.
export const refundChecked = (psp: string, o?: Options) =>
  gnlTool(refundTool(psp, o), {
    sideEffect: true,
    check: async ({ idempotencyKey }) => {
      const res = await fetch(`${psp}/refunds/${idempotencyKey}`);
      if (res.status === 404) return { done: false }; // never happened: run it (same key)
      if (!res.ok) return { done: 'unknown', reason: `PSP lookup answered ${res.status}` };
      return { done: true, output: (await res.json()) as Refund }; // happened: record its result
    },
  });
// #endregion

// #region resolve
// A person looked the key up in the PSP's dashboard and found the refund, or found none.
export async function settleRefund(
  journal: Journal,
  blocked: { runId: string; toolCallId: string },
  found: Refund | undefined,
  by: string,
) {
  const { runId, toolCallId } = blocked;
  if (found) {
    const reason = `PSP shows ${found.refundId}`;
    await journal.resolveSideEffect({
      runId,
      toolCallId,
      outcome: 'done',
      output: found,
      by,
      reason,
    });
  } else {
    const reason = 'no refund at the PSP under this key';
    await journal.resolveSideEffect({ runId, toolCallId, outcome: 'not-done', by, reason });
  }
}
// #endregion

// #region wrong
// Wrong: this PSP ignores Idempotency-Key, so retrySafe promises something nobody keeps.
export const refundAtLegacyPsp = (legacyPsp: string) =>
  gnlTool(refundTool(legacyPsp), { sideEffect: true, retrySafe: true });
// #endregion
