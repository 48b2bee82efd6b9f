/**
 * The demo support workflow: the process around the support agent. It classifies the message, hands it
 * to the support agent as a child run (the agent's refund still waits for a person in the inbox), sleeps
 * a moment (a durable sleep), then waits for the customer's reply, up to two days by default, without holding a worker. No reply: one
 * follow-up email, through the one door (at most once; the outside service counts it). Its steps call
 * the demo's outside service (lib/demo/outside-service.ts), as the agent's tools do.
 */
import { z } from 'zod';
import { demoServiceUrl, serviceClient } from '@/lib/demo';
import { defineWorkflow } from '@/lib/durable';

function msFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`${name} must be a whole number of milliseconds, not "${raw}"`);
  return ms;
}

/** How long the workflow waits for the customer's reply (GNL_DEMO_REPLY_WAIT_MS; default two days). */
export const replyWaitMs = (env: NodeJS.ProcessEnv = process.env) => msFromEnv('GNL_DEMO_REPLY_WAIT_MS', 2 * 24 * 60 * 60 * 1000, env);

/** The pause before it asks for the reply, a durable sleep the Demo page shows (GNL_DEMO_COOL_OFF_MS; default 5 s). */
export const coolOffMs = (env: NodeJS.ProcessEnv = process.env) => msFromEnv('GNL_DEMO_COOL_OFF_MS', 5_000, env);

export const supportFlowInput = z.object({
  customerId: z.string().regex(/^c_\w{1,40}$/, 'a customer id like c_42'),
  message: z.string().min(1).max(4_000),
});

export const customerReply = z.object({ text: z.string().min(1).max(4_000) });

/** A keyword classification: deterministic, so the demo runs without a model key too. */
export function classify(message: string): 'refund' | 'question' | 'other' {
  if (/\brefund|money back|charged twice\b/i.test(message)) return 'refund';
  if (/\?|\bhow\b|\bwhen\b|\bwhy\b/i.test(message)) return 'question';
  return 'other';
}

export const supportFlow = defineWorkflow({
  name: 'support-flow',
  description: 'Classify, hand the message to the support agent, wait for the customer’s reply; no reply: one follow-up email.',
  input: supportFlowInput,
  events: { 'customer-reply': customerReply },
  run: async (wf, { customerId, message }) => {
    const client = serviceClient(demoServiceUrl());
    const category = await wf.step('classify', { input: { message } }, () => classify(message));
    const answer = await wf.child<string>('support', { agent: 'support', input: { prompt: `Customer ${customerId} writes (${category}): ${message}` } });
    // A durable sleep: no worker is held, and any executor wakes it, after a crash too.
    await wf.sleep('cool-off', coolOffMs());
    const reply = await wf.waitForEvent<{ text: string }>('customer-reply', { timeoutMs: replyWaitMs() });
    if (!reply.timedOut) return { category, answer, reply: reply.payload.text, followUp: null };
    const to = await wf.step('find-address', { input: { customerId } }, async () => (await client.lookupCustomer(customerId))?.email ?? null);
    if (to === null) return { category, answer, reply: null, followUp: null };
    const email = { to, subject: 'Is there anything else?', body: `We answered: ${answer}\nReply to this email if anything is still open.` };
    const followUp = await wf.step(
      'follow-up-email',
      {
        input: email,
        sideEffect: true,
        // The service keeps what it did by key: after a crash the step asks it rather than guess.
        check: async ({ idempotencyKey }) => {
          const found = await client.findByKey('emails', idempotencyKey);
          return found ? { done: true, output: found.emailId } : { done: false };
        },
      },
      async ({ input, idempotencyKey }) => {
        const sent = await client.perform('emails', input, idempotencyKey);
        if (sent.status !== 'performed') throw new Error(`the service refused the follow-up email: ${sent.reason}`);
        return sent.result.emailId;
      },
    );
    return { category, answer, reply: null, followUp };
  },
});
