/**
 * The Webhooks screen's changes (app/(studio)/webhooks): add a webhook (its signing key shown once),
 * rotate its key (the old one signs too for an overlap), pause or resume it, remove it, and send it a
 * test. Each one call into the journal's webhook store (lib/executor/notifications/webhook-store.ts),
 * audited there in the actor's name. Server-only: the server actions in app/(studio)/actions.ts check
 * the session and the admin permission first.
 */
import 'server-only';
import { randomUUID } from 'node:crypto';
import { storageFromEnv } from '@/lib/durable/storage';
import { notifySettingsForDirectory, postWebhook, type WebhookRecord, WebhookInputError, WebhookStore } from '@/lib/executor';
import type { ActionResult, Refusal } from './operator-actions';

export function studioWebhookStore(): WebhookStore {
  const storage = storageFromEnv();
  return new WebhookStore(() => storage.database(), storage.secrets);
}

function refusal(error: unknown, what: string): Refusal {
  if (WebhookInputError.isInstance(error)) return { ok: false, kind: 'invalid', message: error.message };
  console.error(`studio: ${what} failed:`, error);
  return { ok: false, kind: 'error', message: `Could not ${what}; the Studio’s server log says why.` };
}

/** The signing key is in the answer this once: the page shows it, and nothing else keeps it in clear. */
export async function addWebhook(request: {
  label: string;
  url: string;
  format: 'json' | 'slack';
  by: string;
}): Promise<ActionResult<{ secret: string; record: WebhookRecord }>> {
  try {
    const made = await studioWebhookStore().add(request);
    return { ok: true, secret: made.secret, record: made.record };
  } catch (error) {
    return refusal(error, 'add the webhook');
  }
}

export async function rotateWebhookKey(request: {
  id: string;
  overlapHours: number;
  by: string;
  /** The form's: a retried request answers with the key it made instead of rotating again. */
  requestId: string;
}): Promise<ActionResult<{ secret: string; previousUntil: string | null }>> {
  try {
    const rotated = await studioWebhookStore().rotateSecret(request);
    return { ok: true, secret: rotated.secret, previousUntil: rotated.previousUntil?.toISOString() ?? null };
  } catch (error) {
    return refusal(error, 'rotate the key');
  }
}

export async function setWebhookEnabled(request: { id: string; enabled: boolean; reason: string; by: string }): Promise<ActionResult<{ enabled: boolean }>> {
  try {
    const record = await studioWebhookStore().setEnabled(request);
    return { ok: true, enabled: record.enabled };
  } catch (error) {
    return refusal(error, request.enabled ? 'resume the webhook' : 'pause the webhook');
  }
}

export async function removeWebhook(request: { id: string; reason: string; by: string }): Promise<ActionResult<{ removed: true }>> {
  try {
    await studioWebhookStore().remove(request);
    return { ok: true, removed: true };
  } catch (error) {
    return refusal(error, 'remove the webhook');
  }
}

/**
 * A signed test to the webhook now (paused or not), as a notification is sent: the same headers and
 * signature, a body of `type: "test"` with an id of its own (`gnl_test_…`), in the webhook's format.
 * What the receiver answered is the result, and the audit's.
 */
export async function sendTestWebhook(request: {
  id: string;
  by: string;
}): Promise<ActionResult<{ delivered: boolean; httpStatus: number | null; error: string | null; ms: number; eventId: string }>> {
  try {
    const store = studioWebhookStore();
    const target = await store.target(request.id);
    const eventId = `gnl_test_${randomUUID().replaceAll('-', '')}`;
    const sentAt = new Date().toISOString();
    const message = `A test from GNL Studio, sent by ${request.by}: this address receives GNL's notifications${target.format === 'slack' ? '' : ', and GNL-Signature verifies with its key'}.`;
    const body = JSON.stringify(target.format === 'slack' ? { text: message } : { id: eventId, type: 'test', sentAt, sentBy: request.by, message });
    const t0 = performance.now();
    const result = await postWebhook(target, body, eventId, notifySettingsForDirectory());
    const ms = Math.round(performance.now() - t0);
    await store.recordTest({
      id: request.id,
      by: request.by,
      ms,
      ...(result.httpStatus !== undefined ? { httpStatus: result.httpStatus } : {}),
      ...(result.error ? { error: result.error } : {}),
    });
    return { ok: true, delivered: result.status === 'delivered', httpStatus: result.httpStatus ?? null, error: result.error ?? null, ms, eventId };
  } catch (error) {
    return refusal(error, 'send the test');
  }
}
