/**
 * Workflows from the command line, through gnl's own entry (tests/support/gnl-cli.ts) on a temp embedded journal against the demo's
 * real outside service: `gnl workflows`, `gnl workflow start … --wait` (the demo support-flow: a step, the
 * support agent as a child run, then a wait for the customer's reply), `gnl tree`, `gnl event send`
 * (a payload its schema refuses, then one event sent twice: recorded once), and the resume that delivers
 * it. What the service performed is read from the service's own counters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { gnl, gnlJson } from '@/tests/support/gnl-cli';
import { tempDataDir } from '@/tests/support/journals';

describe('gnl workflow, event, tree [pglite]', { timeout: 300_000 }, () => {
  let service: OutsideService;
  let env: Record<string, string>;
  beforeAll(async () => {
    service = await startOutsideService();
    env = { GNL_DEMO_SERVICE_URL: service.url, GNL_DATA_DIR: tempDataDir(), GNL_DEMO_REPLY_WAIT_MS: '600000', GNL_DEMO_COOL_OFF_MS: '300' };
  });
  afterAll(() => service.close());
  const run = (args: string[]) => gnl(args, { env });

  it('starts the support flow, which waits for the reply after its child agent answered; an event sent twice is delivered once', async () => {
    const listed = await gnlJson(['workflows', '--json'], { env });
    expect(listed).toMatchObject([{ name: 'support-flow', version: '1', events: { 'customer-reply': { type: 'object', required: ['text'] } } }]);

    const refused = await run(['workflow', 'start', 'support-flow', '--input', '{"customerId":"42","message":""}']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('input.customerId');
    expect(refused.stderr).toContain('input.message');

    const id = `flow-cli:${Date.now()}`;
    const input = JSON.stringify({ customerId: 'c_42', message: 'Please change my delivery address to Main Street 1.' });
    const started = await gnlJson(['workflow', 'start', 'support-flow', '--input', input, '--run-id', id, '--by', 'desk@example.com', '--wait'], { env });
    expect(started).toMatchObject({ runId: id, workflow: 'support-flow', created: true, run: { status: 'waiting' } });
    const exported = await run(['export', id]);
    expect(exported.stdout.split('\n').find((line) => line.includes('"type":"run-start"'))).toContain('"by":"desk@example.com"');
    // The child agent ran in this gnl process: one ticket and one email at the service.
    expect(service.stats().tickets.performed).toBe(1);
    expect(service.stats().emails.performed).toBe(1);

    const tree = await gnlJson(['tree', `${id}/support`], { env });
    expect(tree.rootRunId).toBe(id);
    expect(tree.nodes).toMatchObject([
      { runId: id, kind: 'workflow', name: 'support-flow', status: 'waiting', depth: 0 },
      { runId: `${id}/support`, kind: 'agent', name: 'support', status: 'completed', depth: 1, parentRunId: id, step: 'support' },
    ]);
    const shown = await run(['show', id]);
    expect(shown.stdout).toContain(`gnl event send ${id} <name>`);
    expect(shown.stdout).toContain('cool-off (wf-2) sleeps until');
    expect(shown.stdout).toContain('customer-reply (wf-3) waits for event customer-reply until');

    const bad = await run(['event', 'send', id, 'customer-reply', '--payload', '{"text":7}', '--by', 'desk']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid-payload');
    const notJson = await run(['event', 'send', id, 'customer-reply', '--payload', '{text', '--by', 'desk']);
    expect(notJson.code).toBe(2);

    const send = ['event', 'send', id, 'customer-reply', '--payload', '{"text":"Thanks, all good"}', '--event-id', 'reply-1', '--by', 'desk'];
    expect(await gnlJson(send, { env })).toMatchObject({ runId: id, eventId: 'reply-1', recorded: true });
    expect(await gnlJson(send, { env })).toMatchObject({ recorded: false });

    const resumed = await gnlJson(['resume', id, '--by', 'desk', '--wait'], { env });
    expect(resumed.run.status).toBe('completed');
    const events = (await gnlJson(['show', id], { env })).events as { type: string; output?: unknown; eventId?: string }[];
    expect(events.filter((e) => e.type === 'workflow-event').map((e) => e.eventId)).toEqual(['reply-1']);
    expect(events.find((e) => e.type === 'run-complete')?.output).toMatchObject({ category: 'other', reply: 'Thanks, all good', followUp: null });
    // No follow-up email: the reply came. Still one email, the agent's.
    expect(service.stats().emails.performed).toBe(1);

    const ended = await run(['event', 'send', id, 'customer-reply', '--payload', '{"text":"again"}', '--by', 'desk']);
    expect(ended.code).toBe(4);
    expect(ended.stderr).toContain('ended');

    // A refund: the child agent waits for its approval, so --wait settles with the workflow waiting for it.
    const refundId = `flow-cli-refund:${Date.now()}`;
    const refund = JSON.stringify({ customerId: 'c_42', message: 'I was charged twice, please refund order o_17' });
    const waiting = await gnlJson(['workflow', 'start', 'support-flow', '--input', refund, '--run-id', refundId, '--wait', '--timeout', '120'], { env });
    expect(waiting.run.status).toBe('waiting');
    expect((await gnlJson(['show', `${refundId}/support`], { env })).run.status).toBe('waiting-approval');
  });
});
