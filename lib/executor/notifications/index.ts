/**
 * Webhook notifications of runs that wait for people or failed. An append writes a gnl.notifications
 * outbox row; the notifier (notifier.ts) claims and settles them (notification-outbox.ts), asks whether
 * each is still news (announcement-verdict.ts), builds the body (notification-body.ts), signs it
 * (webhook-signature.ts) and delivers it to the targets of notify-settings.ts (the environment, zod) and
 * of webhook-store.ts (set in the Studio's Webhooks screen).
 * run-notifications.ts lists a run's deliveries. docs/notifications.md.
 * Re-exported by lib/executor/index.ts, the layer's public surface; files of the layer import each other directly.
 */
export {
  notifySettingsFromEnv,
  notifySettingsForDirectory,
  NotifySettingsError,
  type NotifySettings,
  type NotifyTarget,
  type NotifyFormat,
} from './notify-settings';
export { WebhookStore, WebhookInputError, webhookId, type WebhookRecord, type WebhookAuditEntry } from './webhook-store';
export { postWebhook, EVENT_ID_HEADER } from './notifier';
export { runNotifications } from './run-notifications';
export type { OutboxRow, Delivery, TargetResult } from './notification-outbox';
export { notificationEventId, type NotificationBody } from './notification-body';
export type { NotifierEvent } from './notifier';
