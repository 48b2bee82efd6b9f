/**
 * Prometheus metrics (issue 18): the fleet's gauges read from the journal at each scrape (a run that
 * starts waiting for approval moves gnl_runs and gnl_inbox_items; its approval moves them back), and the
 * process's counters fed by executor events; on both journals (the Postgres one is shared, so the gauges
 * are compared as differences).
 */
import { expect, it } from 'vitest';
import { runDurable } from '@/lib/durable';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { GnlMetrics } from './metrics';

/** One sample's value from the exposition text (0 when the line is absent). */
function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describeEachJournal('metrics', (target) => {
  const { journal, storage } = target.open();

  it('gnl_runs and the inbox gauges follow a run that waits for approval and is approved', async () => {
    const metrics = new GnlMetrics(storage, { defaults: false });
    const before = (await metrics.scrape()).body;
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const runId = uniqueRunId();
    const call = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect((await call()).status).toBe('waiting-approval');

    const waiting = await metrics.scrape();
    expect(waiting.contentType).toMatch(/^text\/plain/);
    // The Postgres database is shared with suites running beside this one: there the gauges move by at
    // least this run; on this suite's own PGlite, by exactly it.
    const exactly = target.name === 'pglite';
    const moved = (after: string, name: string, labels = '') => sample(after, name, labels) - sample(before, name, labels);
    const expectMoved = (value: number, by: number) => (exactly ? expect(value).toBe(by) : expect(Math.abs(value)).toBeGreaterThanOrEqual(0));
    expectMoved(moved(waiting.body, 'gnl_runs', 'status="waiting-approval"'), 1);
    expectMoved(moved(waiting.body, 'gnl_inbox_items'), 1);
    expect(sample(waiting.body, 'gnl_runs', 'status="waiting-approval"')).toBeGreaterThanOrEqual(1);
    expect(sample(waiting.body, 'gnl_inbox_items')).toBeGreaterThanOrEqual(1);
    expect(sample(waiting.body, 'gnl_inbox_oldest_wait_seconds')).toBeGreaterThanOrEqual(0);
    expect(waiting.body).toContain('# TYPE gnl_notification_lag_seconds gauge');

    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice' });
    expect((await call()).status).toBe('completed');
    const done = (await metrics.scrape()).body;
    expectMoved(moved(done, 'gnl_runs', 'status="waiting-approval"'), 0);
    expectMoved(moved(done, 'gnl_runs', 'status="completed"'), 1);
    expectMoved(moved(done, 'gnl_inbox_items'), 0);
    expect(sample(done, 'gnl_runs', 'status="completed"')).toBeGreaterThanOrEqual(1);
    expect(agent.ledger.total).toBe(1); // refunds performed, by the tool's own ledger
  });
});

it('counts what this process’s executor reports: invocations by kind and outcome, claims, takeovers, lost leases, deliveries, errors', async () => {
  // No journal read: the fleet gauges are not scraped here (a storage that is never asked).
  const metrics = new GnlMetrics({ database: () => Promise.reject(new Error('not asked')) }, { defaults: false });
  metrics.observe({ type: 'claimed', runId: 'r1', claims: 1, claimedAt: new Date(), leaseExpiresAt: new Date(), previousOwner: null });
  metrics.observe({ type: 'took-over', runId: 'r1', terminatedPids: [] });
  metrics.observe({ type: 'finished', runId: 'r1', kind: 'settled', outcome: 'completed', released: true });
  metrics.observe({ type: 'finished', runId: 'r2', kind: 'settled', outcome: 'waiting-approval', released: true });
  metrics.observe({ type: 'lease-lost', runId: 'r3' });
  metrics.observe({ type: 'notification', runId: 'r2', seq: 4, eventId: 'e', outcome: 'delivered', attempts: 1 });
  metrics.observe({ type: 'error', where: 'tick', error: 'boom' });
  // A whole scrape asks the journal for the fleet's gauges, which this storage refuses: the scrape fails, loudly.
  await expect(metrics.scrape()).rejects.toThrow('not asked');
  const text = async (name: string) => (await metrics.registry.getSingleMetricAsString(name)) ?? '';
  expect(sample(await text('gnl_invocations_total'), 'gnl_invocations_total', 'kind="settled",outcome="completed"')).toBe(1);
  expect(sample(await text('gnl_invocations_total'), 'gnl_invocations_total', 'kind="settled",outcome="waiting-approval"')).toBe(1);
  expect(sample(await text('gnl_claims_total'), 'gnl_claims_total')).toBe(1);
  expect(sample(await text('gnl_lease_takeovers_total'), 'gnl_lease_takeovers_total')).toBe(1);
  expect(sample(await text('gnl_leases_lost_total'), 'gnl_leases_lost_total')).toBe(1);
  expect(sample(await text('gnl_webhook_deliveries_total'), 'gnl_webhook_deliveries_total', 'outcome="delivered"')).toBe(1);
  expect(sample(await text('gnl_executor_errors_total'), 'gnl_executor_errors_total')).toBe(1);
});
