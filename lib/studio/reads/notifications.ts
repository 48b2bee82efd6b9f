/**
 * A run's webhook notifications for its page (docs/notifications.md): each announced event with its
 * delivery as the outbox records it (attempts, per-webhook results, last error, next attempt). Server-only;
 * plain values, every text rendered as text. Webhook URLs are never here: only their origins.
 */
import 'server-only';
import type { RunStatus } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { type Delivery, notificationEventId, notifySettingsFromEnv, runNotifications } from '@/lib/executor';
import { studioWebhookStore } from '@/lib/studio/actions/webhook-actions';

export interface NotificationView {
  eventId: string;
  seq: number;
  status: RunStatus;
  delivery: Delivery;
  attempts: number;
  lastError: string | null;
  /** ISO; while pending. */
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  targets: { target: string; status: 'delivered' | 'failed'; httpStatus: number | null; error: string | null; at: string }[];
}

export async function loadRunNotifications(runId: string, env: Record<string, string | undefined> = process.env): Promise<NotificationView[]> {
  const rows = await runNotifications(runId, { storage: storageFromEnv() });
  // With no webhook set, the outbox still records what would be announced; a row never tried is no
  // notification to show ("pending, 0 attempts" would say one is on its way). Tried ones stay: history.
  const sending = webhookSet(env) || (await studioWebhookStore().list()).some((w) => w.enabled);
  return rows
    .filter((row) => sending || row.attempts > 0 || row.delivery !== 'pending')
    .map((row) => ({
      eventId: notificationEventId(row.runId, row.seq),
      seq: row.seq,
      status: row.status,
      delivery: row.delivery,
      attempts: row.attempts,
      lastError: row.lastError,
      nextAttemptAt: row.delivery === 'pending' ? row.nextAttemptAt.toISOString() : null,
      deliveredAt: row.deliveredAt?.toISOString() ?? null,
      targets: Object.values(row.targets).map((t) => ({
        target: t.target,
        status: t.status,
        httpStatus: t.httpStatus ?? null,
        error: t.error ?? null,
        at: t.at,
      })),
    }));
}

/** Whether this server sends webhooks by GNL_NOTIFY_WEBHOOK_URL (those of the Webhooks screen are asked apart); a bad setting counts as set (the executor says what is wrong). */
function webhookSet(env: Record<string, string | undefined>): boolean {
  try {
    return notifySettingsFromEnv(env) !== undefined;
  } catch {
    return true;
  }
}
