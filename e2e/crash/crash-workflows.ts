/**
 * The workflows the workflow crash suite runs (workflow-crash.test.ts), shared by its test process and
 * its children (workflow-child.ts): a ticket (retrySafe: the service deduplicates by key), a refund (no
 * check, not retrySafe: an unknown outcome blocks the run for a person), a durable sleep, a wait for the
 * customer's reply, then a fan-out of three child workflows that each send one email (with a check by
 * key). Every request goes to the demo's real outside service under the step's idempotency key.
 *
 * GNL_WF_KILL_AT names the point where the process SIGKILLs itself, right after the service performed
 * the work and before its outcome is recorded: ticket, refund, or email-<n> (the n-th child's email).
 */
import { z } from 'zod';
import { createAgentRegistry } from '@/lib/agents';
import { serviceClient } from '@/lib/demo';
import { defineWorkflow } from '@/lib/durable';

export const KILL_AT_ENV = 'GNL_WF_KILL_AT';
export const SERVICE_ENV = 'GNL_WF_SERVICE_URL';
export const SLEEP_MS = 1_500;

const client = () => serviceClient(process.env[SERVICE_ENV] ?? 'http://127.0.0.1:1');
const killIf = (point: string) => {
  if (process.env[KILL_AT_ENV] === point) process.kill(process.pid, 'SIGKILL');
};

const notify = defineWorkflow({
  name: 'crash-notify',
  input: z.object({ n: z.number().int(), to: z.string() }),
  run: async (wf, { n, to }) =>
    wf.step(
      'email',
      {
        input: { to, subject: 'Your refund', body: `Notice ${n}` },
        sideEffect: true,
        check: async ({ idempotencyKey }) => {
          const found = await client().findByKey('emails', idempotencyKey);
          return found ? { done: true, output: found.emailId } : { done: false };
        },
      },
      async ({ input, idempotencyKey }) => {
        const sent = await client().perform('emails', input, idempotencyKey);
        if (sent.status !== 'performed') throw new Error(`email refused: ${sent.reason}`);
        if (!sent.replayed) killIf(`email-${n}`);
        return sent.result.emailId;
      },
    ),
});

export const crashFlow = defineWorkflow({
  name: 'crash-flow',
  input: z.object({ customerId: z.string(), orderId: z.string() }),
  events: { reply: z.object({ text: z.string() }) },
  run: async (wf, { customerId, orderId }) => {
    const ticket = await wf.step(
      'ticket',
      { input: { customerId, subject: 'Refund', message: 'Charged twice' }, sideEffect: true, retrySafe: true },
      async ({ input, idempotencyKey }) => {
        const made = await client().perform('tickets', input, idempotencyKey);
        if (made.status !== 'performed') throw new Error(`ticket refused: ${made.reason}`);
        if (!made.replayed) killIf('ticket');
        return made.result.ticketId;
      },
    );
    const refund = await wf.step(
      'refund',
      { input: { customerId, orderId, amount: 5, ticketId: ticket }, sideEffect: true },
      async ({ input, idempotencyKey }) => {
        const done = await client().perform('refunds', input, idempotencyKey);
        if (done.status !== 'performed') throw new Error(`refund refused: ${done.reason}`);
        if (!done.replayed) killIf('refund');
        return done.result.refundId;
      },
    );
    await wf.sleep('cool-off', SLEEP_MS);
    const reply = await wf.waitForEvent<{ text: string }>('reply', { timeoutMs: 600_000 });
    const emails = await wf.all(
      'notify',
      [0, 1, 2].map((n) => ({ workflow: 'crash-notify', input: { n, to: `${customerId}@example.com` } })),
      { concurrency: 2 },
    );
    return { ticket, refund, reply: reply.timedOut ? null : reply.payload.text, emails };
  },
});

export const crashRegistry = createAgentRegistry([], { workflows: [crashFlow, notify] });
