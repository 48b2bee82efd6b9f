/** A run's webhook notifications as recorded in the outbox (the run page, `gnl show`): oldest first. */
import { type StorageContext, resolveStorage } from '../context';
import { NotificationOutbox, type OutboxRow } from './notification-outbox';

export function runNotifications(runId: string, context: StorageContext = {}): Promise<OutboxRow[]> {
  const { storage } = resolveStorage(context);
  return new NotificationOutbox(() => storage.database()).forRun(runId);
}
