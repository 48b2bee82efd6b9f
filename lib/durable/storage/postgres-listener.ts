/**
 * LISTEN on Postgres, on a connection of its own that is re-established whenever it is lost.
 * (postgres.js's own `listen` re-listens once on close and gives up silently if that fails, and its
 * unlisten forgets listeners re-added by a reconnect; so this keeps its own client per connection.)
 */
import type postgres from 'postgres';
import { NOTIFY_CHANNEL, type NotificationHandlers, type NotificationSource } from './notifications';

const RECONNECT_MS = [100, 500, 2000, 5000];

/** Opens a one-connection client with these hooks (postgres.js options `onnotify`, `onclose`). */
export type ListenClientFactory = (hooks: { onnotify(channel: string, payload: string): void; onclose(): void }) => postgres.Sql;

export class PostgresListener implements NotificationSource {
  private client: postgres.Sql | undefined;
  private handlers: NotificationHandlers | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly open: ListenClientFactory) {}

  async start(handlers: NotificationHandlers): Promise<void> {
    this.handlers = handlers;
    await this.listen(false);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end({ timeout: 1 });
  }

  private async listen(reconnected: boolean): Promise<void> {
    const client = this.open({
      onnotify: (channel, payload) => {
        if (channel === NOTIFY_CHANNEL && client === this.client) this.handlers?.onNotify(payload);
      },
      onclose: () => this.lost(client),
    });
    this.client = client;
    try {
      await client.unsafe(`listen ${NOTIFY_CHANNEL}`);
    } catch (error) {
      if (this.client === client) this.client = undefined;
      void client.end({ timeout: 0 });
      throw error;
    }
    if (this.stopped || this.client !== client) return;
    this.handlers?.onListening(reconnected);
  }

  private lost(client: postgres.Sql): void {
    if (this.stopped || client !== this.client) return;
    this.client = undefined;
    void client.end({ timeout: 0 });
    this.handlers?.onError(new Error('The live notifications connection was lost; reconnecting (subscribers catch up from the journal).'));
    this.reconnect(0);
  }

  private reconnect(attempt: number): void {
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(
      async () => {
        if (this.stopped) return;
        try {
          await this.listen(true);
        } catch (error) {
          this.handlers?.onError(error);
          this.reconnect(attempt + 1);
        }
      },
      RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)],
    );
    this.retryTimer.unref?.();
  }
}
