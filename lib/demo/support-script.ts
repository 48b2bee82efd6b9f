/**
 * What the scripted support model does next, decided from the conversation alone: the customer's
 * request (the user messages) and the tool results so far. It never counts steps, so a replayed,
 * resumed or re-planned conversation gets the same answer for the same state.
 *
 * The policy, the same one the system prompt gives a real model:
 *   1. no customer id in the request → ask for one;
 *   2. look the customer up; unknown → say so, change nothing;
 *   3. open a ticket;
 *   4. a refund was asked: refund it (a person approves it) if the order is theirs and the amount is
 *      at most the order total;
 *   5. a question that is not a refund (the request ends with "?"): ask a colleague (askColleague, a
 *      person answers through the journal) and pass the answer on;
 *   6. email the customer the outcome: confirmation, the colleague's answer, or an apology when the
 *      refund was denied or not possible;
 *   7. answer with a summary.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { Customer } from './service-store';

export type SupportAction = { toolName: string; input: Record<string, unknown> } | { text: string };

/** What a tool call came back with, as the model sees it. */
export type Seen = { kind: 'ok'; value: any } | { kind: 'denied'; reason: string | undefined } | { kind: 'error'; message: string };

export interface SupportRequest {
  text: string;
  customerId?: string;
  orderId?: string;
  /** Set when a refund is asked; undefined amount: the whole order. */
  refund?: { amount?: number };
  /** A question that is not a refund (the request ends with "?"): a colleague answers it. */
  question?: string;
}

export function readRequest(prompt: LanguageModelV4Prompt): SupportRequest {
  const text = prompt
    .filter((m) => m.role === 'user')
    .flatMap((m) => m.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])))
    .join('\n');
  const customerId = /\b(c_[A-Za-z0-9]+)\b/.exec(text)?.[1];
  const orderId = /\b(o_[A-Za-z0-9]+)\b/.exec(text)?.[1];
  const wantsRefund = /\brefund/i.test(text);
  const amount = /\brefund(?:\s+of)?\s*(?:EUR|€|\$)?\s*(\d+(?:\.\d{1,2})?)/i.exec(text)?.[1];
  const question = !wantsRefund && text.trim().endsWith('?') ? text.trim() : undefined;
  return { text, customerId, orderId, ...(wantsRefund ? { refund: amount ? { amount: Number(amount) } : {} } : {}), ...(question ? { question } : {}) };
}

/** The latest result of each tool in the conversation. */
export function readResults(prompt: LanguageModelV4Prompt): Map<string, Seen> {
  const seen = new Map<string, Seen>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      if (output.type === 'json' || output.type === 'text') seen.set(part.toolName, { kind: 'ok', value: output.value });
      else if (output.type === 'execution-denied') seen.set(part.toolName, { kind: 'denied', reason: output.reason });
      else if (output.type === 'error-text') seen.set(part.toolName, { kind: 'error', message: output.value });
      else if (output.type === 'error-json') seen.set(part.toolName, { kind: 'error', message: JSON.stringify(output.value) });
      else seen.set(part.toolName, { kind: 'ok', value: undefined });
    }
  }
  return seen;
}

export function nextSupportAction(prompt: LanguageModelV4Prompt): SupportAction {
  const request = readRequest(prompt);
  const seen = readResults(prompt);
  const failed = [...seen.entries()].find(([, s]) => s.kind === 'error');
  if (failed) return { text: `I could not finish: ${failed[0]} failed (${(failed[1] as { message: string }).message}).` };
  if (!request.customerId) return { text: 'Which customer is this about? Please give me the customer id (like c_42).' };

  const lookup = seen.get('lookupCustomer');
  if (!lookup) return { toolName: 'lookupCustomer', input: { customerId: request.customerId } };
  if (lookup.kind !== 'ok' || !lookup.value?.found) return { text: `I could not find customer ${request.customerId}; nothing was changed.` };
  const customer = lookup.value.customer as Customer;

  const ticketSeen = seen.get('createTicket');
  if (!ticketSeen) {
    const subject = request.refund ? `Refund request${request.orderId ? ` for order ${request.orderId}` : ''}` : 'Support request';
    return { toolName: 'createTicket', input: { customerId: customer.customerId, subject, message: request.text } };
  }
  const ticketId: string | undefined = ticketSeen.kind === 'ok' && ticketSeen.value?.ok ? ticketSeen.value.ticket.ticketId : undefined;

  const refund = planRefund(request, customer);
  const refundSeen = seen.get('issueRefund');
  if (refund.kind === 'refund' && !refundSeen) {
    return {
      toolName: 'issueRefund',
      input: { customerId: customer.customerId, orderId: refund.orderId, amount: refund.amount, ...(ticketId ? { ticketId } : {}) },
    };
  }

  let answer: string | undefined;
  if (request.question) {
    const asked = seen.get('askColleague');
    if (!asked) return { toolName: 'askColleague', input: { question: request.question } };
    answer = asked.kind === 'ok' && typeof asked.value?.answer === 'string' ? asked.value.answer : undefined;
  }

  const letter = outcomeLetter({ customer, refund, refundSeen, ticketId, answer });
  const emailSeen = seen.get('sendEmail');
  if (!emailSeen)
    return { toolName: 'sendEmail', input: { to: customer.email, subject: letter.subject, body: letter.body, ...(ticketId ? { ticketId } : {}) } };
  return { text: `${letter.summary}${ticketId ? ` Ticket ${ticketId}.` : ''} Emailed ${customer.email}.` };
}

type RefundPlan =
  | { kind: 'none' }
  | { kind: 'refund'; orderId: string; amount: number; currency: string }
  | { kind: 'impossible'; why: string; orderId?: string };

function planRefund(request: SupportRequest, customer: Customer): RefundPlan {
  if (!request.refund) return { kind: 'none' };
  if (!request.orderId) return { kind: 'impossible', why: 'no order was named' };
  const order = customer.orders.find((o) => o.orderId === request.orderId);
  if (!order) return { kind: 'impossible', why: `order ${request.orderId} is not one of your orders`, orderId: request.orderId };
  const amount = request.refund.amount ?? order.total;
  if (amount > order.total) {
    return { kind: 'impossible', why: `${amount} ${order.currency} is more than the order total of ${order.total} ${order.currency}`, orderId: order.orderId };
  }
  return { kind: 'refund', orderId: order.orderId, amount, currency: order.currency };
}

function outcomeLetter(args: { customer: Customer; refund: RefundPlan; refundSeen: Seen | undefined; ticketId: string | undefined; answer?: string }) {
  const { customer, refund, refundSeen } = args;
  const hello = `Dear ${customer.name},\n\n`;
  if (refund.kind === 'none' && args.answer !== undefined) {
    return { subject: 'About your question', body: `${hello}${args.answer}`, summary: `Answered (a colleague said: ${args.answer}).` };
  }
  if (refund.kind === 'none') {
    return { subject: 'We received your request', body: `${hello}we received your request and opened a ticket.`, summary: 'Ticket opened.' };
  }
  if (refund.kind === 'impossible') {
    return {
      subject: 'About your refund request',
      body: `${hello}we are sorry: we cannot refund this (${refund.why}).`,
      summary: `No refund: ${refund.why}.`,
    };
  }
  const what = `${refund.amount} ${refund.currency} for order ${refund.orderId}`;
  if (refundSeen?.kind === 'ok' && refundSeen.value?.ok) {
    const refundId = refundSeen.value.refund.refundId as string;
    // What the service refunded, which an approver may have changed from what was asked (edit, then approve).
    const amount = typeof refundSeen.value.refund.amount === 'number' ? refundSeen.value.refund.amount : refund.amount;
    const done = `${amount} ${refund.currency} for order ${refund.orderId}`;
    return { subject: 'Your refund', body: `${hello}we refunded ${done} (refund ${refundId}).`, summary: `Refunded ${done} (refund ${refundId}).` };
  }
  const why =
    refundSeen?.kind === 'denied'
      ? `not approved${refundSeen.reason ? `: ${refundSeen.reason}` : ''}`
      : `refused: ${refundSeen?.kind === 'ok' ? refundSeen.value?.refused : 'unknown'}`;
  return {
    subject: 'We are sorry about your refund',
    body: `${hello}we are sorry: we could not refund ${what}. We apologise for the trouble.`,
    summary: `Refund of ${what} ${why}; apology sent.`,
  };
}
