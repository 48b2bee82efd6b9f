/**
 * Seeds the `long` Studio's run that waits to be resumed (seed-data.ts RESUMABLE): started under the
 * agent name `support` (so the Studio may schedule its resume), its refund's approval asked and then
 * decided by the seed, and never resumed. resume-at.spec.ts schedules its resume far ahead: it never fires.
 */
import { stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { gnlTool, runDurable } from '@/lib/durable';
import type { Storage } from '@/lib/durable/storage';
import { scriptedModel } from '@/tests/support/scripted-model';
import { RESUMABLE } from './seed-data';

export async function seedResumable(storage: Storage): Promise<void> {
  const toolCallId = 'call-refund-o_23';
  const refund = gnlTool(
    tool({
      description: 'Refund an order',
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      execute: async ({ orderId, amount }) => ({ refundId: `r_${orderId}`, amount }),
    }),
    { sideEffect: true, needsApproval: true },
  );
  const model = scriptedModel((step) =>
    step === 0 ? { toolCalls: [{ toolCallId, toolName: RESUMABLE.tool, input: { orderId: 'o_23', amount: 40 } }] } : { text: 'Refunded.' },
  ).model;
  const result = await runDurable({
    runId: RESUMABLE.runId,
    agent: 'support',
    journal: storage.runs,
    model,
    tools: { [RESUMABLE.tool]: refund },
    stopWhen: stepCountIs(5),
    prompt: 'Refund o_23 tonight',
  });
  if (result.status !== 'waiting-approval') throw new Error(`seed-resumable: expected waiting-approval, got ${result.status}`);
  await storage.runs.approve({ runId: RESUMABLE.runId, toolCallId, by: 'e2e seed', reason: 'approved; to run after the cut-off' });
}
