/**
 * The Webhooks screen's read (server-only): the webhooks set in the Studio (origins only: an address may
 * hold a token), those of the environment (GNL_NOTIFY_WEBHOOK_URL, shown by origin, changed only there),
 * the latest deliveries across runs (gnl.notifications) and the audit of changes and tests. Every text
 * is rendered as text.
 */
import 'server-only';
import { sql } from 'drizzle-orm';
import type { RunStatus } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { type Delivery, notificationEventId, notifySettingsFromEnv, type WebhookAuditEntry, type WebhookRecord } from '@/lib/executor';
import { studioWebhookStore } from '@/lib/studio/actions/webhook-actions';

export interface WebhookDeliveryView {
  runId: string;
  seq: number;
  eventId: string;
  status: RunStatus;
  delivery: Delivery;
  attempts: number;
  lastError: string | null;
  updatedAt: string;
  targets: { target: string; status: string; httpStatus: number | null; error: string | null }[];
}

export interface WebhookScreen {
  /** Addresses and keys sealed with the journal key (GNL_JOURNAL_KEY), or kept in clear. */
  sealed: boolean;
  webhooks: (Omit<WebhookRecord, 'createdAt' | 'updatedAt' | 'previousKeyUntil'> & { createdAt: string; updatedAt: string; previousKeyUntil: string | null })[];
  /** GNL_NOTIFY_WEBHOOK_URL's, by origin; `problem`: why the environment's settings cannot be used. */
  environment: { origins: string[]; format: string; signed: boolean; problem?: string };
  deliveries: WebhookDeliveryView[];
  audit: (Omit<WebhookAuditEntry, 'at'> & { at: string; label: string | null })[];
}

const DELIVERIES = 50;

export async function loadWebhookScreen(env: Record<string, string | undefined> = process.env): Promise<WebhookScreen> {
  const store = studioWebhookStore();
  const [webhooks, audit, deliveries] = await Promise.all([store.list(), store.audit({ limit: 50 }), recentDeliveries()]);
  // A removed webhook's entries keep its label: the audit's own record of it (created, removed).
  const labels = new Map<string, string>();
  for (const a of audit) if (typeof a.detail.label === 'string' && !labels.has(a.webhookId)) labels.set(a.webhookId, a.detail.label);
  for (const w of webhooks) labels.set(w.id, w.label);
  return {
    sealed: store.sealed,
    webhooks: webhooks.map((w) => ({
      ...w,
      createdAt: w.createdAt.toISOString(),
      updatedAt: w.updatedAt.toISOString(),
      previousKeyUntil: w.previousKeyUntil?.toISOString() ?? null,
    })),
    environment: environmentWebhooks(env),
    deliveries,
    audit: audit.map((a) => ({
      ...a,
      at: a.at.toISOString(),
      label: labels.get(a.webhookId) ?? null,
    })),
  };
}

function environmentWebhooks(env: Record<string, string | undefined>): WebhookScreen['environment'] {
  try {
    const settings = notifySettingsFromEnv(env);
    return { origins: settings?.targets.map((t) => t.display) ?? [], format: settings?.format ?? 'json', signed: settings?.secret !== undefined };
  } catch (error) {
    return { origins: [], format: 'json', signed: false, problem: (error as Error).message };
  }
}

async function recentDeliveries(): Promise<WebhookDeliveryView[]> {
  type Row = {
    run_id: string;
    seq: number;
    status: string;
    delivery: string;
    attempts: number;
    last_error: string | null;
    updated_at: Date | string;
    targets: Record<string, { target: string; status: string; httpStatus?: number; error?: string }>;
  };
  const db = await storageFromEnv().database();
  const result = (await db.execute(sql`select run_id, seq, status, delivery, attempts, last_error, updated_at, targets
    from gnl.notifications where attempts > 0 or delivery <> 'pending' order by updated_at desc, run_id, seq limit ${DELIVERIES}`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
  return rows.map((row) => ({
    runId: row.run_id,
    seq: row.seq,
    eventId: notificationEventId(row.run_id, row.seq),
    status: row.status as RunStatus,
    delivery: row.delivery as Delivery,
    attempts: row.attempts,
    lastError: row.last_error,
    updatedAt: new Date(row.updated_at).toISOString(),
    targets: Object.values(row.targets ?? {}).map((t) => ({ target: t.target, status: t.status, httpStatus: t.httpStatus ?? null, error: t.error ?? null })),
  }));
}
