/**
 * A run's webhook notifications for its page (docs/notifications.md): each announced event with its
 * delivery as the outbox records it (attempts, per-webhook results, last error, next attempt). Server-only;
 * plain values, every text rendered as text. Webhook URLs are never here: only their origins.
 */
import 'server-only';
import type { RunStatus } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { type Delivery, notificationEventId, runNotifications } from '@/lib/executor';

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

export async function loadRunNotifications(runId: string): Promise<NotificationView[]> {
  const rows = await runNotifications(runId, { storage: storageFromEnv() });
  return rows.map((row) => ({
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
