/**
 * The notifier on real journals (a fresh database each), delivering to real HTTP receivers that verify
 * the signature with the guide's receiver code: what is sent, to whom, how often, and what is recorded.
 */
import { afterEach, expect, it } from 'vitest';
import { startReceiver } from '@/docs/examples/notify-receiver';
import type { JournalEvent, PendingItem } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { uniqueRunId } from '@/tests/support/journals';
import { startWebhookReceiver, type WebhookReceiver } from '@/tests/support/webhook-receiver';
import { notificationEventId } from './notification-body';
import { NotificationOutbox } from './notification-outbox';
import { Notifier, type NotifierEvent } from './notifier';
import { type NotifySettings, notifyTarget } from './notify-settings';
import { RunQueue } from '../run-queue';

const SECRET = 'whsec-test-0123456789abcdef';
const input = { prompt: 'Refund o_17', modelId: 'm', provider: 'x', toolNames: ['issueRefund'], agent: 'support' };
const approval: PendingItem = {
  kind: 'approval',
  toolCallId: 'call-2-issueRefund',
  toolName: 'issueRefund',
  input: { orderId: 'o_17', amount: 40, apiKey: 'sk-live-0123456789abcdefghijklmnop' },
  requestedAt: new Date().toISOString(),
};

function settings(receivers: WebhookReceiver[], over: Partial<NotifySettings> = {}): NotifySettings {
  return {
    targets: receivers.map((r, i) => notifyTarget(r.url, i + 1)),
    secret: SECRET,
    format: 'json',
    studioUrl: 'https://studio.example.com',
    maxAttempts: 3,
    baseDelayMs: 1,
    maxDelayMs: 4,
    timeoutMs: 10_000,
    maxAgeMs: 3_600_000,
    ...over,
  };
}

describeEachStorage('notifier', (holder) => {
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  const receiver = async (answer?: (n: number) => number) => {
    const r = await startWebhookReceiver(SECRET, answer);
    receivers.push(r);
    return r;
  };
  const notifier = (s: NotifySettings, events: NotifierEvent[] = []) =>
    new Notifier({
      settings: s,
      journal: holder.storage.runs,
      outbox: new NotificationOutbox(() => holder.storage.database()),
      queue: new RunQueue(() => holder.storage.database()),
      owner: 'test-notifier',
      sole: false,
      onEvent: (e) => events.push(e),
      onError: (where, error) => {
        throw new Error(`notifier ${where}`, { cause: error });
      },
    });
  const outbox = () => new NotificationOutbox(() => holder.storage.database());
  /** A run recorded through the journal: its start, one step, then `tail` (each its own append). */
  const recordRun = async (...tail: JournalEvent[][]) => {
    const runId = uniqueRunId('notify');
    const hold = await holder.storage.runs.hold(runId);
    await hold.create(input);
    await hold.append([{ type: 'model-step', step: 0, provider: 'x', modelId: 'm', latencyMs: 1, result: {} }]);
    const seqs: number[] = [];
    for (const batch of tail) seqs.push(...(await hold.append(batch)).map((e) => e.seq));
    await hold.release();
    return { runId, seqs };
  };
  /** Passes until the run's notifications are no longer pending (each pass sends what is due). */
  const passUntilSettled = async (n: Notifier, runId: string) => {
    for (let i = 0; i < 200; i++) {
      await n.pass();
      const rows = await outbox().forRun(runId);
      if (rows.every((row) => row.delivery !== 'pending')) return rows;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`notifications of ${runId} stayed pending: ${JSON.stringify(await outbox().forRun(runId))}`);
  };

  it('a run waiting for approval is announced once to every webhook: signed, with its event id, agent, link and what it waits for, secrets redacted', async () => {
    const [a, b] = [await receiver(), await receiver()];
    const { runId, seqs } = await recordRun([{ type: 'run-suspend', status: 'waiting-approval', pending: [approval] }]);
    const n = notifier(settings([a as WebhookReceiver, b as WebhookReceiver]));
    const [row] = await passUntilSettled(n, runId);
    await n.pass(); // nothing is due any more
    const eventId = notificationEventId(runId, seqs[0] as number);
    for (const r of [a, b] as WebhookReceiver[]) {
      expect(r.received).toHaveLength(1);
      expect(r.deliveriesOf(eventId)).toHaveLength(1);
    }
    const body = a?.deliveriesOf(eventId)[0];
    expect(body).toEqual({
      id: eventId,
      type: 'run.waiting',
      createdAt: expect.any(String),
      run: { id: runId, agent: 'support', status: 'waiting-approval', seq: seqs[0], url: `https://studio.example.com/run?id=${encodeURIComponent(runId)}` },
      waitingFor: [{ ...approval, input: { orderId: 'o_17', amount: 40, apiKey: '•••• redacted' } }],
      error: null,
    });
    expect(a?.received[0]?.raw).not.toContain('sk-live');
    expect(row).toMatchObject({ delivery: 'delivered', attempts: 1, lastError: null, deliveredAt: expect.any(Date) });
    // Per webhook, in no particular order (the row's jsonb orders its keys its own way).
    const origins = [a, b].map((r) => new URL(r?.url as string).origin).sort();
    const targets = Object.values(row?.targets ?? {}).sort((t, u) => t.target.localeCompare(u.target));
    expect(targets).toEqual(origins.map((target) => expect.objectContaining({ target, status: 'delivered', httpStatus: 200 })));
    expect(JSON.stringify(row)).not.toContain('token=not-shown');
  });

  it('a webhook that fails is retried with backoff, alone (the one that answered is not sent again), and each attempt is recorded', async () => {
    const ok = await receiver();
    const flaky = await receiver((i) => (i < 2 ? 503 : 200));
    const { runId, seqs } = await recordRun([{ type: 'run-suspend', status: 'waiting-approval', pending: [approval] }]);
    const events: NotifierEvent[] = [];
    const [row] = await passUntilSettled(notifier(settings([ok, flaky]), events), runId);
    expect(ok.received).toHaveLength(1);
    expect(flaky.received.map((r) => r.eventId)).toEqual(Array(3).fill(notificationEventId(runId, seqs[0] as number)));
    expect(row).toMatchObject({ delivery: 'delivered', attempts: 3, lastError: null });
    expect(events.filter((e) => e.type === 'notification').map((e) => [e.type === 'notification' && e.outcome, e.type === 'notification' && e.error])).toEqual([
      ['retry', `${new URL(flaky.url).origin}: HTTP 503`],
      ['retry', `${new URL(flaky.url).origin}: HTTP 503`],
      ['delivered', undefined],
    ]);
  });

  it('after maxAttempts the notification is failed, with its last error; an unreachable webhook names the cause, not the URL', async () => {
    const down = await receiver();
    await down.close();
    receivers.splice(receivers.indexOf(down), 1);
    const { runId } = await recordRun([{ type: 'run-suspend', status: 'blocked', pending: [] }]);
    const [row] = await passUntilSettled(notifier(settings([down], { maxAttempts: 2 })), runId);
    expect(row).toMatchObject({ delivery: 'failed', attempts: 2, lastError: expect.stringMatching(/ECONNREFUSED/) });
    expect(row?.lastError).not.toContain('token');
  });

  it('a wait that ended before its turn (the run was resumed) is superseded, not sent', async () => {
    const r = await receiver();
    const { runId } = await recordRun(
      [{ type: 'run-suspend', status: 'waiting-approval', pending: [approval] }],
      [{ type: 'run-resume', fromStatus: 'waiting-approval' }],
    );
    const [row] = await passUntilSettled(notifier(settings([r])), runId);
    expect(row).toMatchObject({ delivery: 'superseded', attempts: 0, lastError: 'the run was resumed before the notification was sent' });
    expect(r.received).toEqual([]);
  });

  it('a failure for good is announced with its error; one with a retry due is held back, not sent', async () => {
    const r = await receiver();
    const fail: JournalEvent = { type: 'run-fail', error: { name: 'ToolError', message: 'refund service said no' } };
    const final = await recordRun([fail]);
    const [row] = await passUntilSettled(notifier(settings([r])), final.runId);
    expect(row).toMatchObject({ delivery: 'delivered', status: 'failed' });
    expect(r.deliveriesOf(notificationEventId(final.runId, final.seqs[0] as number))).toEqual([
      expect.objectContaining({ type: 'run.failed', waitingFor: [], error: { name: 'ToolError', message: 'refund service said no' } }),
    ]);
    const retrying = await recordRun(
      [fail],
      [{ type: 'run-retry', by: 'w1', attempt: 1, attempts: 3, error: fail.error, retryAt: new Date(Date.now() + 3_600_000).toISOString() }],
    );
    await notifier(settings([r])).pass();
    expect(await outbox().forRun(retrying.runId)).toEqual([expect.objectContaining({ delivery: 'pending', attempts: 0, nextAttemptAt: expect.any(Date) })]);
    expect(r.received).toHaveLength(1);
  });

  it('the Slack body is one setting away: { text } with a link to the run and what it waits for', async () => {
    const r = await receiver();
    const { runId } = await recordRun([{ type: 'run-suspend', status: 'waiting-approval', pending: [approval] }]);
    await passUntilSettled(notifier(settings([r], { format: 'slack' })), runId);
    expect(r.received.map((x) => x.body)).toEqual([
      {
        text: `GNL: run <https://studio.example.com/run?id=${encodeURIComponent(runId)}|${runId}> (support) waits for approval of issueRefund (call-2-issueRefund)`,
      },
    ]);
  });

  it('an event never tried by maxAgeMs is expired, not sent: turning webhooks on does not announce old runs', async () => {
    const r = await receiver();
    const { runId } = await recordRun([{ type: 'run-suspend', status: 'waiting-approval', pending: [approval] }]);
    const [row] = await passUntilSettled(notifier(settings([r], { maxAgeMs: 0 })), runId);
    expect(row).toMatchObject({ delivery: 'expired', attempts: 0 });
    expect(r.received).toEqual([]);
  });
});

it("the guide's receiver answers a repeated delivery 200 but hands its event over once, and refuses a bad signature", async () => {
  const { notificationBody, encodeNotification } = await import('./notification-body');
  const { signWebhook } = await import('./webhook-signature');
  const { SecretFields } = await import('@/lib/durable');
  const seen: string[] = [];
  const server = startReceiver({ port: 0, secret: SECRET, onEvent: (event) => seen.push(event.id) });
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as { port: number }).port;
  const body = encodeNotification(
    notificationBody(
      { runId: 'r1', seq: 4, status: 'blocked', at: new Date(), agent: undefined, pending: [], error: undefined },
      { fields: new SecretFields() },
    ),
    'json',
  );
  const post = (signature: string) =>
    fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body, headers: { 'GNL-Signature': signature } }).then((res) => res.status);
  const good = signWebhook({ secret: SECRET, body, timestamp: Date.now() / 1000 });
  expect(await post(good)).toBe(200);
  expect(await post(good)).toBe(200);
  expect(await post(signWebhook({ secret: 'another-secret-0123456789', body, timestamp: Date.now() / 1000 }))).toBe(401);
  expect(await post(signWebhook({ secret: SECRET, body, timestamp: Date.now() / 1000 - 3_600 }))).toBe(401);
  expect(seen).toEqual([notificationEventId('r1', 4)]);
  await new Promise((resolve) => server.close(resolve));
});
