/**
 * Webhooks set in the Studio (webhook-store.ts) on real journals, with a journal key (so the address and
 * the key are sealed at rest), delivered to real receivers that verify GNL-Signature with the guide's code:
 * a webhook added is used by the next pass without a restart, signed with its own key; a rotation signs
 * with both keys for its overlap; a paused webhook is sent nothing and nothing is claimed while none is
 * set; the audit keeps every change and refuses to be rewritten.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterEach, expect, it } from 'vitest';
import { verifyGnlSignature } from '@/docs/examples/notify-receiver';
import type { PendingItem } from '@/lib/durable';
import { journalKeyFrom } from '@/lib/durable/storage';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { uniqueRunId } from '@/tests/support/journals';
import { startWebhookReceiver, type WebhookReceiver } from '@/tests/support/webhook-receiver';
import { RunQueue } from '../run-queue';
import { notificationEventId } from './notification-body';
import { NotificationOutbox } from './notification-outbox';
import { Notifier } from './notifier';
import type { NotifySettings } from './notify-settings';
import { WebhookInputError, WebhookStore } from './webhook-store';

const BASE: NotifySettings = { targets: [], format: 'json', maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 4, timeoutMs: 10_000, maxAgeMs: 3_600_000 };
const approval: PendingItem = {
  kind: 'approval',
  toolCallId: 'call-1',
  toolName: 'issueRefund',
  input: { orderId: 'o_17', amount: 40 },
  requestedAt: new Date().toISOString(),
};
const KEY = journalKeyFrom(randomBytes(32).toString('base64'), 'test key');

describeEachStorage(
  'webhooks set in the Studio',
  (holder) => {
    const receivers: WebhookReceiver[] = [];
    afterEach(async () => {
      await Promise.all(receivers.splice(0).map((r) => r.close()));
      await (await holder.storage.database()).execute(sql`delete from gnl.webhooks`);
    });
    const store = () => new WebhookStore(() => holder.storage.database(), holder.storage.secrets);
    const notifier = () =>
      new Notifier({
        settings: BASE,
        directory: store(),
        journal: holder.storage.runs,
        outbox: new NotificationOutbox(() => holder.storage.database()),
        queue: new RunQueue(() => holder.storage.database()),
        owner: 'webhook-store-test',
        sole: false,
        onError: (where, error) => {
          throw new Error(`notifier ${where}`, { cause: error });
        },
      });
    const suspendedRun = async () => {
      const runId = uniqueRunId('webhooks');
      const hold = await holder.storage.runs.hold(runId);
      await hold.create({ prompt: 'Refund o_17', modelId: 'm', provider: 'x', toolNames: ['issueRefund'], agent: 'support' });
      const [suspend] = await hold.append([{ type: 'run-suspend', status: 'waiting-approval', pending: [approval] }]);
      await hold.release();
      return { runId, eventId: notificationEventId(runId, suspend?.seq as number) };
    };
    const rowOf = async (runId: string) => (await new NotificationOutbox(() => holder.storage.database()).forRun(runId))[0];

    it('added here, used by the next pass with its own key; the address and key sealed at rest, only the origin listed; each change audited', async () => {
      const { runId: early } = await suspendedRun();
      await notifier().pass();
      expect(await rowOf(early), 'no webhook anywhere: nothing claimed, nothing tried').toMatchObject({ delivery: 'pending', attempts: 0 });

      const receiver = await startWebhookReceiver('not used: each signature is checked below with the key');
      receivers.push(receiver);
      const { secret, record } = await store().add({ label: 'On call', url: receiver.url, format: 'json', by: 'alice' });
      expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
      expect(record).toMatchObject({ label: 'On call', origin: new URL(receiver.url).origin, format: 'json', enabled: true, createdBy: 'alice' });
      expect(JSON.stringify(await store().list())).not.toContain('token=not-shown');
      const [stored] = (await (
        await holder.storage.database()
      )
        .execute(sql`select url::text as url, secret::text as secret from gnl.webhooks`)
        .then((r) => (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows))) as { url: string; secret: string }[];
      expect(stored?.url).toContain('$gnl:enc');
      expect(stored?.url).not.toContain('token=not-shown');
      expect(stored?.secret).not.toContain(secret.slice(6));

      // The next pass (no restart, a new notifier as a new process would be) delivers the waiting run's notification there, signed with the key.
      await notifier().pass();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]?.eventId).toBe(notificationEventId(early, 2));
      const header = receiver.headers[0]?.['gnl-signature'] as string;
      expect(verifyGnlSignature(secret, header, receiver.received[0]?.raw as string)).toBe(true);
      expect(verifyGnlSignature('whsec_other', header, receiver.received[0]?.raw as string)).toBe(false);
      expect(await rowOf(early)).toMatchObject({ delivery: 'delivered', attempts: 1 });
      expect(Object.values((await rowOf(early))?.targets ?? {})).toEqual([
        expect.objectContaining({ target: record.origin, status: 'delivered', httpStatus: 200 }),
      ]);

      await expect(store().add({ label: 'Again', url: receiver.url, format: 'json', by: 'bob' })).rejects.toThrow(/already a webhook here/);
      await expect(store().add({ label: '', url: 'ftp://x', format: 'json', by: 'bob' })).rejects.toThrow(WebhookInputError);
      await expect(store().add({ label: 'x', url: 'not an address', format: 'json', by: 'bob' })).rejects.toThrow(/http or https address/);
      const actions = (await store().audit()).map((a) => `${a.action} ${a.by}`);
      expect(actions).toEqual(['created alice']);
      await expect((await holder.storage.database()).execute(sql`update gnl.webhook_audit set by = 'mallory'`)).rejects.toMatchObject({
        cause: { message: expect.stringMatching(/gnl.webhook_audit is append-only/) },
      });
    });

    it('a rotation request made again (its answer lost) answers with the key it made: one rotation, the original key still signs for its overlap; refused once rotated again since', async () => {
      const { secret: first, record } = await store().add({
        label: 'Retried',
        url: `https://retry-${randomUUID()}.example.com/hook`,
        format: 'json',
        by: 'alice',
      });
      const requestId = randomUUID();
      const once = await store().rotateSecret({ id: record.id, by: 'alice', overlapHours: 24, requestId });
      const again = await store().rotateSecret({ id: record.id, by: 'alice', overlapHours: 24, requestId });
      expect(again).toMatchObject({ secret: once.secret, repeated: true });
      expect(again.previousUntil?.getTime()).toBe(once.previousUntil?.getTime());
      const target = (await store().targets()).find((t) => t.id === record.id);
      expect(target).toMatchObject({ secret: once.secret, previousSecret: first });
      const rotations = (await store().audit({ id: record.id })).filter((a) => a.action === 'secret-rotated');
      expect(rotations.map((a) => a.detail)).toEqual([{ overlapHours: 24, requestId }]);

      const next = await store().rotateSecret({ id: record.id, by: 'bob', overlapHours: 24, requestId: randomUUID() });
      await expect(store().rotateSecret({ id: record.id, by: 'alice', overlapHours: 24, requestId })).rejects.toThrow(/rotated again since/);
      expect((await store().targets()).find((t) => t.id === record.id)).toMatchObject({ secret: next.secret, previousSecret: once.secret });

      // Removed and added again at the same address (the same id): an old request of the removed one rotates the new one, returns none of its keys.
      await store().remove({ id: record.id, by: 'alice', reason: 'moved' });
      const readded = await store().add({ label: 'Retried again', url: target?.url as string, format: 'json', by: 'alice' });
      const old = await store().rotateSecret({ id: readded.record.id, by: 'alice', overlapHours: 24, requestId: randomUUID() });
      expect(old.repeated).toBeUndefined();
      const stale = await store().rotateSecret({
        id: readded.record.id,
        by: 'alice',
        overlapHours: 24,
        requestId, // the first request, made of the removed webhook
      });
      expect(stale.repeated).toBeUndefined();
      expect(stale.secret).not.toBe(once.secret);
    });

    it('a rotation signs with the new key and, for its overlap, the old one too; none after an overlap of 0; a paused webhook is sent nothing', async () => {
      const capture = await startWebhookReceiver('not used: signatures are checked below by each key');
      receivers.push(capture);
      const { secret: first, record } = await store().add({ label: 'Rotating', url: capture.url, format: 'json', by: 'alice' });
      const signatureOf = () => capture.received.at(-1) as { raw: string };
      const { secret: second, previousUntil } = await store().rotateSecret({ id: record.id, by: 'alice', overlapHours: 24 });
      expect(previousUntil?.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
      const targets = await store().targets();
      expect(targets).toEqual([expect.objectContaining({ id: record.id, secret: second, previousSecret: first, format: 'json' })]);

      const { runId } = await suspendedRun();
      await notifier().pass();
      expect(capture.received).toHaveLength(1);
      const header = capture.headers.at(-1)?.['gnl-signature'] as string;
      expect(header.match(/v1=/g)).toHaveLength(2);
      expect(verifyGnlSignature(second, header, signatureOf().raw)).toBe(true);
      expect(verifyGnlSignature(first, header, signatureOf().raw)).toBe(true);
      expect(verifyGnlSignature('whsec_wrong', header, signatureOf().raw)).toBe(false);
      expect((await rowOf(runId))?.delivery).toBe('delivered');

      const { secret: third } = await store().rotateSecret({ id: record.id, by: 'alice', overlapHours: 0 });
      expect((await store().targets())[0]?.previousSecret).toBeUndefined();
      const { runId: next } = await suspendedRun();
      await notifier().pass();
      const lastHeader = capture.headers.at(-1)?.['gnl-signature'] as string;
      expect(lastHeader.match(/v1=/g)).toHaveLength(1);
      expect(verifyGnlSignature(third, lastHeader, signatureOf().raw)).toBe(true);
      expect(verifyGnlSignature(second, lastHeader, signatureOf().raw)).toBe(false);
      expect((await rowOf(next))?.delivery).toBe('delivered');

      await store().setEnabled({ id: record.id, enabled: false, by: 'bob', reason: 'receiver down for maintenance' });
      const { runId: paused } = await suspendedRun();
      await notifier().pass();
      expect(capture.received).toHaveLength(2);
      expect(await rowOf(paused), 'paused: nothing claimed or tried').toMatchObject({ delivery: 'pending', attempts: 0 });
      await expect(store().setEnabled({ id: record.id, enabled: true, by: 'bob', reason: ' ' })).rejects.toThrow(/Say why/);
      await store().setEnabled({ id: record.id, enabled: true, by: 'bob', reason: 'back' });
      await notifier().pass();
      expect(capture.received).toHaveLength(3);
      expect((await store().audit({ id: record.id })).map((a) => a.action)).toEqual(['resumed', 'paused', 'secret-rotated', 'secret-rotated', 'created']);
    });
  },
  { secrets: { key: KEY } },
);
