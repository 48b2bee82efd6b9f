/**
 * The demo end to end in this process: the support agent on the scripted model, a real outside service
 * over HTTP, a real journal. Judged by the service's own counters.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { runAgent } from '@/lib/agents';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { type OutsideService, startOutsideService } from './index';

const REFUND = { prompt: 'Customer c_42 wants a refund of 40 for order o_17' };

describeEachJournal('demo support agent, end to end', (target) => {
  const { journal } = target.open();
  let service: OutsideService;
  beforeEach(async () => {
    service = await startOutsideService();
  });
  afterEach(() => service.close());

  const start = async (input: { prompt: string }) => {
    const agent = supportAgent({ serviceUrl: service.url, checks: true });
    const runId = uniqueRunId('demo');
    return { agent, runId, result: await runAgent({ agent, runId, input, journal }) };
  };

  it('stops for approval at issueRefund after the lookup and the ticket; approved, it refunds once and emails once', async () => {
    const { agent, runId, result } = await start(REFUND);
    expect(result).toMatchObject({
      status: 'waiting-approval',
      pending: [{ toolName: 'issueRefund', input: { customerId: 'c_42', orderId: 'o_17', amount: 40, ticketId: 'tk_1' } }],
    });
    expect(service.stats()).toMatchObject({ customerLookups: 1, tickets: { performed: 1 }, refunds: { requests: 0 }, emails: { requests: 0 } });
    expect((await journal.getRun(runId))?.input).toMatchObject({ agent: 'support', modelId: 'scripted-support-v1', provider: 'gnl-demo' });

    const toolCallId = result.status === 'waiting-approval' ? (result.pending[0]?.toolCallId as string) : '';
    await journal.approve({ runId, toolCallId, by: 'ops@example.com' });
    const done = await runAgent({ agent, runId, input: REFUND, journal });
    expect(done).toMatchObject({ status: 'completed', text: 'Refunded 40 EUR for order o_17 (refund rf_1). Ticket tk_1. Emailed ada@example.com.' });

    const stats = service.stats();
    expect(stats.tickets).toMatchObject({ requests: 1, performed: 1 });
    expect(stats.refunds).toMatchObject({ requests: 1, performed: 1, deduplicated: 0 });
    expect(stats.emails).toMatchObject({ requests: 1, performed: 1 });
    expect(service.records('refunds')).toMatchObject([{ customerId: 'c_42', orderId: 'o_17', amount: 40, currency: 'EUR', ticketId: 'tk_1' }]);
    expect(service.records('emails')).toMatchObject([{ to: 'ada@example.com', subject: 'Your refund', ticketId: 'tk_1' }]);

    // Called again, the completed run answers from the journal: nothing reaches the service.
    const again = await runAgent({ agent, runId, input: REFUND, journal });
    expect(again).toMatchObject({ status: 'completed', text: (done as { text: string }).text, replayedSteps: 5 });
    expect(service.stats()).toEqual(stats);
  });

  it('rejected, the model sees the refusal and emails an apology instead; no refund reaches the service', async () => {
    const { agent, runId, result } = await start(REFUND);
    const toolCallId = result.status === 'waiting-approval' ? (result.pending[0]?.toolCallId as string) : '';
    await journal.reject({ runId, toolCallId, by: 'ops@example.com', reason: 'refund window closed' });
    const done = await runAgent({ agent, runId, input: REFUND, journal });
    expect(done).toMatchObject({ status: 'completed', text: expect.stringContaining('not approved: refund window closed; apology sent') });
    const stats = service.stats();
    expect(stats.refunds.requests).toBe(0);
    expect(stats.emails).toMatchObject({ requests: 1, performed: 1 });
    expect(service.records('emails')).toMatchObject([{ to: 'ada@example.com', subject: 'We are sorry about your refund' }]);
  });

  it('a refund above the order total is not attempted: no approval asked, an explanation emailed', async () => {
    const { result } = await start({ prompt: 'Customer c_42 wants a refund of 400 for order o_17' });
    expect(result).toMatchObject({ status: 'completed', text: expect.stringContaining('No refund: 400 EUR is more than the order total of 40 EUR') });
    expect(service.stats()).toMatchObject({ tickets: { performed: 1 }, refunds: { requests: 0 }, emails: { performed: 1 } });
  });

  it('an unknown customer changes nothing', async () => {
    const { result } = await start({ prompt: 'Customer c_999 wants a refund of 5 for order o_1' });
    expect(result).toMatchObject({ status: 'completed', text: 'I could not find customer c_999; nothing was changed.' });
    expect(service.stats()).toMatchObject({ customerLookups: 1, tickets: { requests: 0 }, refunds: { requests: 0 }, emails: { requests: 0 } });
  });
});
