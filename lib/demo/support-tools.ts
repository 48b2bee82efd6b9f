/**
 * The support agent's tools. Each calls the outside service over HTTP; the three that change
 * something send runDurable's `options.idempotencyKey` as the Idempotency-Key header, so the service
 * can tell a repeat from new work. How each side effect is settled after a crash differs on purpose,
 * to show the three ways:
 *   lookupCustomer  read-only: journaled, run again freely on resume;
 *   createTicket    idempotency 'args' (the same ticket asked twice is one ticket) and retrySafe: the
 *                   service deduplicates by key, so an unknown outcome is simply sent again;
 *   issueRefund     needs a person's approval; `check` asks the service by key after an unknown outcome;
 *   sendEmail       `check` too;
 *   askColleague    a person answers it (askPerson: no execute): the run waits, the Studio's inbox shows a
 *                   form from its output schema, and the answer goes to the model through the journal.
 * With `checks: false` issueRefund and sendEmail have no check: an unknown outcome blocks the run.
 */
import { tool } from 'ai';
import { z } from 'zod';
import { type ApprovalRule, askPerson, type CheckResult, gnlTool, type LookupResult } from '@/lib/durable';
import { armedCrashPoint, type CrashPoint, crashIfArmed } from './crash-points';
import { demoServiceUrl } from './demo-config';
import { type OperationResult, type ResultOf, serviceClient } from './service-client';
import type { Customer, Email, OperationKind, Refund, Ticket } from './service-store';

export interface SupportToolsOptions {
  /** The outside service's base URL. Default: GNL_DEMO_SERVICE_URL, else http://127.0.0.1:4010, read each time a tool runs. */
  serviceUrl?: string;
  /** Give issueRefund and sendEmail a `check` that asks the service by key. Default true. */
  checks?: boolean;
  /** A refund's approval question expires this long after it is asked (the executor expires it then). Default: never. */
  approvalExpiresInMs?: number;
  /** Who may approve a refund (gnlTool's `approvers`: role, N of M, four eyes). Default: any one person who may decide. */
  refundApprovers?: ApprovalRule;
}

export type LookupOutput = { found: true; customer: Customer } | { found: false; customerId: string };
export type Performed<K extends string, T> = ({ ok: true } & Record<K, T>) | { ok: false; refused: string };
export type TicketOutput = Performed<'ticket', Ticket>;
export type RefundOutput = Performed<'refund', Refund>;
export type EmailOutput = Performed<'email', Email>;

export const lookupCustomerInput = z.object({ customerId: z.string().describe('The customer id, e.g. c_42') });
export const createTicketInput = z.object({
  customerId: z.string(),
  subject: z.string().describe('One line'),
  message: z.string().describe("The customer's request, as they wrote it"),
});
export const issueRefundInput = z.object({
  customerId: z.string(),
  orderId: z.string(),
  amount: z.number().positive().describe('In the order currency, at most the order total'),
  ticketId: z.string().optional(),
});
export const askColleagueInput = z.object({ question: z.string().describe("The customer's question, as they asked it") });
export const askColleagueOutput = z.object({ answer: z.string().trim().min(1).describe('What to tell the customer') });
export const sendEmailInput = z.object({ to: z.string().describe('Email address'), subject: z.string(), body: z.string(), ticketId: z.string().optional() });

/**
 * What each tool returns, as output schemas: the Studio checks an output an operator gives when marking
 * a side effect done against them (found through the agent registry), before the journal accepts it.
 */
const customerSchema = z.object({
  customerId: z.string(),
  name: z.string(),
  email: z.string(),
  orders: z.array(z.object({ orderId: z.string(), total: z.number(), currency: z.string() })),
});
const ticketSchema = z.object({ ticketId: z.string().min(1), customerId: z.string().min(1), subject: z.string(), message: z.string(), createdAt: z.string() });
const refundSchema = z.object({
  // An id the service gave: a person marking the refund done types it from the service's record, never an empty one.
  refundId: z.string().min(1).describe('As the service shows it, e.g. rf_1'),
  customerId: z.string().min(1),
  orderId: z.string().min(1),
  amount: z.number(),
  currency: z.string(),
  ticketId: z.string().optional(),
  createdAt: z.string(),
});
const emailSchema = z.object({
  emailId: z.string().min(1),
  to: z.string().min(1),
  subject: z.string(),
  body: z.string(),
  ticketId: z.string().optional(),
  sentAt: z.string(),
});
/** `{ ok: true, <name>: record }`, or `{ ok: false, refused }` when the service refused the request. */
function performedSchema<K extends string, S extends z.ZodType>(name: K, record: S) {
  // Discriminated by `ok`, so a wrong field is named (a plain union only says "Invalid input").
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true) }).extend({ [name]: record } as Record<K, S>),
    z.object({ ok: z.literal(false), refused: z.string() }),
  ]);
}
export const lookupCustomerOutput = z.discriminatedUnion('found', [
  z.object({ found: z.literal(true), customer: customerSchema }),
  z.object({ found: z.literal(false), customerId: z.string() }),
]);
export const createTicketOutput = performedSchema('ticket', ticketSchema);
export const issueRefundOutput = performedSchema('refund', refundSchema);
export const sendEmailOutput = performedSchema('email', emailSchema);

export function supportTools(options: SupportToolsOptions = {}) {
  const client = () => serviceClient(options.serviceUrl ?? demoServiceUrl());
  const checks = options.checks ?? true;

  /** POSTs under the call's key; SIGKILLs this process right after a fresh performance if `point` is armed. */
  async function perform<K extends OperationKind>(kind: K, body: object, key: string | undefined, point: CrashPoint) {
    const armed = armedCrashPoint(); // a bad GNL_DEMO_CRASH_AT throws here, before anything is sent
    const answer = await client().perform(kind, body, key);
    if (answer.status === 'performed' && !answer.replayed) crashIfArmed(point, armed);
    return answer;
  }
  /** A gnlTool check: has the service performed anything under this key? */
  function checkByKey<K extends OperationKind, OUT>(kind: K, wrap: (result: ResultOf<K>) => OUT) {
    return async ({ idempotencyKey }: { idempotencyKey: string }): Promise<CheckResult<OUT>> => {
      const found = await client().findByKey(kind, idempotencyKey);
      return found ? { done: true, output: wrap(found) } : { done: false };
    };
  }

  /** A gnlTool lookup: what the service holds under this key, for a person settling an unknown outcome. */
  function lookupByKey<K extends OperationKind, OUT>(kind: K, wrap: (result: ResultOf<K>) => OUT) {
    return async ({ idempotencyKey }: { idempotencyKey: string }): Promise<LookupResult<OUT>> => {
      const found = await client().findByKey(kind, idempotencyKey);
      return found ? { found: true, record: found, output: wrap(found) } : { found: false };
    };
  }

  const lookupCustomer = tool({
    description: 'Look up a customer and their orders by customer id. Read-only.',
    inputSchema: lookupCustomerInput,
    outputSchema: lookupCustomerOutput,
    execute: async ({ customerId }): Promise<LookupOutput> => {
      const customer = await client().lookupCustomer(customerId);
      return customer ? { found: true, customer } : { found: false, customerId };
    },
  });

  const createTicket = gnlTool(
    tool({
      description: "Open a support ticket for the customer's request. Do this once per request, before acting on it.",
      inputSchema: createTicketInput,
      outputSchema: createTicketOutput,
      execute: async (input, { idempotencyKey }): Promise<TicketOutput> => {
        const answer = await perform('tickets', input, idempotencyKey, 'after-ticket-created');
        return outcome(answer, (ticket) => ({ ok: true, ticket }));
      },
    }),
    { sideEffect: true, idempotency: 'args', retrySafe: true, lookup: lookupByKey('tickets', (ticket): TicketOutput => ({ ok: true, ticket })) },
  );

  const issueRefund = gnlTool(
    tool({
      description: 'Refund an amount of one of the customer’s orders. A person approves every refund before it is issued.',
      inputSchema: issueRefundInput,
      outputSchema: issueRefundOutput,
      execute: async (input, { idempotencyKey }): Promise<RefundOutput> => {
        const answer = await perform('refunds', input, idempotencyKey, 'after-refund-answered');
        return outcome(answer, (refund) => ({ ok: true, refund }));
      },
    }),
    {
      sideEffect: true,
      needsApproval: true,
      lookup: lookupByKey('refunds', (refund): RefundOutput => ({ ok: true, refund })),
      ...(options.approvalExpiresInMs !== undefined ? { approvalExpiresInMs: options.approvalExpiresInMs } : {}),
      ...(options.refundApprovers ? { approvers: options.refundApprovers } : {}),
      ...(checks ? { check: checkByKey('refunds', (refund): RefundOutput => ({ ok: true, refund })) } : {}),
    },
  );

  const sendEmail = gnlTool(
    tool({
      description: 'Send an email to the customer.',
      inputSchema: sendEmailInput,
      outputSchema: sendEmailOutput,
      execute: async (input, { idempotencyKey }): Promise<EmailOutput> => {
        const answer = await perform('emails', input, idempotencyKey, 'after-email-sent');
        return outcome(answer, (email) => ({ ok: true, email }));
      },
    }),
    {
      sideEffect: true,
      lookup: lookupByKey('emails', (email): EmailOutput => ({ ok: true, email })),
      ...(checks ? { check: checkByKey('emails', (email): EmailOutput => ({ ok: true, email })) } : {}),
    },
  );

  const askColleague = askPerson({
    description: 'Ask a support colleague a question your tools cannot answer (a policy, an exception, a delivery). A person answers; wait for it.',
    inputSchema: askColleagueInput,
    outputSchema: askColleagueOutput,
  });

  return { lookupCustomer, createTicket, issueRefund, sendEmail, askColleague };
}

export type SupportTools = ReturnType<typeof supportTools>;

function outcome<T, OUT>(answer: OperationResult<T>, wrap: (result: T) => OUT): OUT | { ok: false; refused: string } {
  return answer.status === 'performed' ? wrap(answer.result) : { ok: false, refused: answer.reason };
}
