/**
 * Scripted models for the guides' tests: real LanguageModelV4s (the SDK's MockLanguageModelV4) that
 * answer each step from a script and report every REAL call to the outside world's model log before
 * answering, so a test counts model calls across processes (and a crash can be aimed at a step).
 */
import { MockLanguageModelV4 } from 'ai/test';
import { type ScriptedStep, stepResult } from '@/tests/support/scripted-model';

export function worldModel(args: {
  worldUrl: string;
  agent: string;
  script: (step: number) => ScriptedStep;
}): MockLanguageModelV4 {
  const { worldUrl, agent, script } = args;
  return new MockLanguageModelV4({
    provider: 'scripted',
    modelId: `scripted-${agent}`,
    doGenerate: async (options) => {
      // The step number is the number of assistant messages already in the prompt.
      const step = options.prompt.filter((m) => m.role === 'assistant').length;
      const logged = await fetch(`${worldUrl}/model-calls`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ agent, step, pid: process.pid }),
      });
      if (!logged.ok) throw new Error(`model log answered ${logged.status}`);
      return stepResult(script(step), step);
    },
  });
}

export const SUPPORT_MESSAGE = 'Customer c_42: my order o_17 arrived broken.';

/** Look up the customer, open a ticket, email them, answer. */
export function supportScript(step: number): ScriptedStep {
  const call = (toolName: string, input: unknown) => ({
    toolCalls: [{ toolCallId: `call-${step}`, toolName, input }],
  });
  if (step === 0) return call('lookupCustomer', { customerId: 'c_42' });
  if (step === 1)
    return call('createTicket', { customerId: 'c_42', subject: 'Order o_17 arrived broken' });
  if (step === 2)
    return call('sendEmail', {
      to: 'ana@example.com',
      subject: 'We are on it',
      body: 'We opened a ticket for order o_17.',
    });
  return { text: 'Opened a ticket and emailed Ana.' };
}

/** Refund one order, answer. */
export function refundScript(input: { orderId: string; amount: number }) {
  return (step: number): ScriptedStep =>
    step === 0
      ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input }] }
      : { text: `Refunded ${input.amount} for ${input.orderId}.` };
}

/** Refund, then ask for the same refund again under a new call id (the model re-plans), then answer. */
export function replanScript(input: { orderId: string; amount: number }) {
  return (step: number): ScriptedStep =>
    step < 2
      ? { toolCalls: [{ toolCallId: `call-refund-${step}`, toolName: 'refund', input }] }
      : { text: `Refunded ${input.amount} for ${input.orderId}.` };
}
