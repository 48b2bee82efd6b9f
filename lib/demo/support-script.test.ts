import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { nextSupportAction } from './support-script';
import { ScriptedSupportModel } from './scripted-support-model';
import { DEMO_CUSTOMERS } from './service-store';

const ask = (text: string): LanguageModelV4Prompt => [
  { role: 'system', content: 'You are a support agent.' },
  { role: 'user', content: [{ type: 'text', text }] },
];
let callNumber = 0;
function answered(prompt: LanguageModelV4Prompt, toolName: string, output: any): LanguageModelV4Prompt {
  const toolCallId = `c${++callNumber}`;
  return [
    ...prompt,
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId, toolName, input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName, output }] },
  ];
}
const json = (value: unknown) => ({ type: 'json' as const, value: value as never });
const ada = DEMO_CUSTOMERS[0];

describe('scripted support model: the next step follows from the conversation', () => {
  const refundAsk = ask('Customer c_42 wants a refund of 40 for order o_17');
  const looked = answered(refundAsk, 'lookupCustomer', json({ found: true, customer: ada }));
  const ticketed = answered(looked, 'createTicket', json({ ok: true, ticket: { ticketId: 'tk_9' } }));

  it('lookup → ticket → refund → email → summary', () => {
    expect(nextSupportAction(refundAsk)).toEqual({ toolName: 'lookupCustomer', input: { customerId: 'c_42' } });
    expect(nextSupportAction(looked)).toMatchObject({ toolName: 'createTicket', input: { customerId: 'c_42', subject: 'Refund request for order o_17' } });
    expect(nextSupportAction(ticketed)).toEqual({ toolName: 'issueRefund', input: { customerId: 'c_42', orderId: 'o_17', amount: 40, ticketId: 'tk_9' } });
    const refunded = answered(ticketed, 'issueRefund', json({ ok: true, refund: { refundId: 'rf_3' } }));
    expect(nextSupportAction(refunded)).toMatchObject({ toolName: 'sendEmail', input: { to: 'ada@example.com', subject: 'Your refund', ticketId: 'tk_9' } });
    const emailed = answered(refunded, 'sendEmail', json({ ok: true, email: { emailId: 'em_1' } }));
    expect(nextSupportAction(emailed)).toEqual({ text: 'Refunded 40 EUR for order o_17 (refund rf_3). Ticket tk_9. Emailed ada@example.com.' });
  });

  it('a denied refund (execution-denied) is answered with an apology email', () => {
    const denied = answered(ticketed, 'issueRefund', { type: 'execution-denied', reason: 'over the limit' });
    expect(nextSupportAction(denied)).toMatchObject({ toolName: 'sendEmail', input: { subject: 'We are sorry about your refund' } });
    const emailed = answered(denied, 'sendEmail', json({ ok: true, email: {} }));
    expect(nextSupportAction(emailed)).toMatchObject({ text: expect.stringContaining('not approved: over the limit; apology sent') });
  });

  it('reads state, not step numbers: the same results in another order, or with chatter between, give the same next step', () => {
    const chatter: LanguageModelV4Prompt = [...looked, { role: 'assistant', content: [{ type: 'text', text: 'One moment.' }] }];
    expect(nextSupportAction(chatter)).toEqual(nextSupportAction(looked));
    const ticketFirst = answered(
      answered(refundAsk, 'createTicket', json({ ok: true, ticket: { ticketId: 'tk_9' } })),
      'lookupCustomer',
      json({ found: true, customer: ada }),
    );
    expect(nextSupportAction(ticketFirst)).toEqual(nextSupportAction(ticketed));
  });

  it('no customer id: asks for one; unknown customer: changes nothing; no refund asked: ticket and acknowledgement', () => {
    expect(nextSupportAction(ask('I want my money back'))).toMatchObject({ text: expect.stringContaining('customer id') });
    expect(nextSupportAction(answered(ask('c_1 wants a refund'), 'lookupCustomer', json({ found: false, customerId: 'c_1' })))).toEqual({
      text: 'I could not find customer c_1; nothing was changed.',
    });
    const question = answered(
      answered(ask('Customer c_42 asks where order o_18 is'), 'lookupCustomer', json({ found: true, customer: ada })),
      'createTicket',
      json({ ok: true, ticket: { ticketId: 'tk_1' } }),
    );
    expect(nextSupportAction(question)).toMatchObject({ toolName: 'sendEmail', input: { subject: 'We received your request' } });
  });

  it('a question (ending with "?"): after the ticket, a colleague is asked; their answer is emailed and summarised', () => {
    const questionAsk = ask('Customer c_42 asks: can I change the delivery address of order o_17?');
    const ticketedQuestion = answered(
      answered(questionAsk, 'lookupCustomer', json({ found: true, customer: ada })),
      'createTicket',
      json({ ok: true, ticket: { ticketId: 'tk_2' } }),
    );
    expect(nextSupportAction(ticketedQuestion)).toEqual({
      toolName: 'askColleague',
      input: { question: 'Customer c_42 asks: can I change the delivery address of order o_17?' },
    });
    const told = answered(ticketedQuestion, 'askColleague', json({ answer: 'Yes, until it ships.' }));
    expect(nextSupportAction(told)).toMatchObject({
      toolName: 'sendEmail',
      input: { to: 'ada@example.com', subject: 'About your question', body: 'Dear Ada Lovelace,\n\nYes, until it ships.', ticketId: 'tk_2' },
    });
    const emailed = answered(told, 'sendEmail', json({ ok: true, email: {} }));
    expect(nextSupportAction(emailed)).toEqual({ text: 'Answered (a colleague said: Yes, until it ships.). Ticket tk_2. Emailed ada@example.com.' });
    // A refund that ends with "?" is a refund, not a question for a colleague.
    const refundQuestion = answered(
      answered(ask('Customer c_42: can I have a refund of 40 for order o_17?'), 'lookupCustomer', json({ found: true, customer: ada })),
      'createTicket',
      json({ ok: true, ticket: { ticketId: 'tk_3' } }),
    );
    expect(nextSupportAction(refundQuestion)).toMatchObject({ toolName: 'issueRefund' });
  });

  it('a refund with no amount is the whole order; another customer’s order is not refunded', () => {
    const whole = answered(
      answered(ask('c_42: refund order o_18 please'), 'lookupCustomer', json({ found: true, customer: ada })),
      'createTicket',
      json({ ok: true, ticket: { ticketId: 'tk_1' } }),
    );
    expect(nextSupportAction(whole)).toMatchObject({ toolName: 'issueRefund', input: { orderId: 'o_18', amount: 120 } });
    const foreign = answered(
      answered(ask('c_42: refund of 10 for order o_21'), 'lookupCustomer', json({ found: true, customer: ada })),
      'createTicket',
      json({ ok: true, ticket: { ticketId: 'tk_1' } }),
    );
    expect(nextSupportAction(foreign)).toMatchObject({ toolName: 'sendEmail', input: { subject: 'About your refund request' } });
  });

  it('is a real LanguageModelV4: generateText and streaming both work, with usage', async () => {
    const model = new ScriptedSupportModel();
    const result = await generateText({ model, prompt: 'Customer c_42 asks about order o_17' });
    expect(result.toolCalls).toMatchObject([{ toolName: 'lookupCustomer', input: { customerId: 'c_42' } }]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    const streamed = await model.doStream({ prompt: ask('Hello') });
    const parts: unknown[] = [];
    for await (const part of streamed.stream as unknown as AsyncIterable<unknown>) parts.push(part);
    expect(parts).toContainEqual({ type: 'text-delta', id: 'text', delta: expect.stringContaining('customer id') });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'stop' } });
  });
});
