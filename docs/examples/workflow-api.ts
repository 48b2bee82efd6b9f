/**
 * The workflows guide's code (docs/workflows.md): a workflow around the support agent, its registration
 * beside the agents, and a sub-agent used as a tool. The guide's code blocks are the #region parts of this
 * file (docs/examples/code-blocks.test.ts); type-checked with the rest, never run here: the demo's own
 * support flow (agents/support-flow.ts) runs in lib/cli/workflow-cli.test.ts and e2e/studio/workflow.spec.ts.
 */
import type { LanguageModel } from 'ai';
import { support } from '@/agents/support';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
import { subAgentTool } from '@gnldev/durable';

// The outside world this example talks to (the demo's service in agents/support-flow.ts).
declare function classify(message: string): 'refund' | 'question' | 'other';
declare function findEmail(
  idempotencyKey: string,
): Promise<{ done: true; output: string } | { done: false }>;
declare function sendEmail(customerId: string, idempotencyKey: string): Promise<string>;
declare const model: LanguageModel;

// #region define
import { z } from 'zod';
import { defineWorkflow } from '@gnldev/durable';

export const supportFlow = defineWorkflow({
  name: 'support-flow',
  input: z.object({ customerId: z.string(), message: z.string() }),
  events: { 'customer-reply': z.object({ text: z.string() }) },
  run: async (wf, { customerId, message }) => {
    const category = await wf.step('classify', { input: { message } }, () => classify(message));
    // An agent as a child run: its steps, approvals and side effects are its own (the inbox shows its refund).
    const answer = await wf.child<string>('support', {
      agent: 'support',
      input: { prompt: `Customer ${customerId}: ${message}` },
    });
    // Waits without a worker; the timeout is a value, not a crash.
    const reply = await wf.waitForEvent<{ text: string }>('customer-reply', {
      timeoutMs: 2 * 24 * 3600_000,
    });
    if (!reply.timedOut) return { category, answer, reply: reply.payload.text };
    // A side effect: at most once, through the same door as an agent's tool; after a crash `check` asks the service.
    const emailId = await wf.step(
      'follow-up-email',
      {
        input: { customerId },
        sideEffect: true,
        check: async ({ idempotencyKey }) => findEmail(idempotencyKey),
      },
      ({ idempotencyKey }) => sendEmail(customerId, idempotencyKey),
    );
    return { category, answer, reply: null, emailId };
  },
});
// #endregion

// #region register
export const registry = createAgentRegistry([support], { workflows: [supportFlow] });
// #endregion

// #region sub-agent
const lead = defineAgent({
  name: 'lead',
  model,
  tools: {
    delegate: subAgentTool({ agent: 'refunds', description: 'Hand a refund to the refunds agent' }),
  },
});
// #endregion
export { lead };
