/**
 * LISTEN on Postgres, on a connection of its own that is re-established whenever it is lost.
 * (postgres.js's own `listen` re-listens once on close and gives up silently if that fails, and its
 * unlisten forgets listeners re-added by a reconnect; so this keeps its own client per connection.)
 * The connection is idle by design, so it exempts its session from idle_session_timeout
 * (session-settings.ts) and sends a keep-alive statement every `keepAliveMs` so that no proxy cuts it;
 * a keep-alive that fails needs no handling of its own: the connection's close reconnects and reports.
 */
import type postgres from 'postgres';
import { NOTIFY_CHANNEL, type NotificationHandlers, type NotificationSource } from './notifications';
import { DEFAULT_KEEP_ALIVE_MS, EXEMPT_FROM_IDLE_TIMEOUT } from './session-settings';

const RECONNECT_MS = [100, 500, 2000, 5000];

/** Opens a one-connection client with these hooks (postgres.js options `onnotify`, `onclose`). */
export type ListenClientFactory = (hooks: { onnotify(channel: string, payload: string): void; onclose(): void }) => postgres.Sql;

export class PostgresListener implements NotificationSource {
  private client: postgres.Sql | undefined;
  private handlers: NotificationHandlers | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private keepAlive: NodeJS.Timeout | undefined;

  constructor(
    private readonly open: ListenClientFactory,
    private readonly keepAliveMs = DEFAULT_KEEP_ALIVE_MS,
  ) {}

  async start(handlers: NotificationHandlers): Promise<void> {
    this.handlers = handlers;
    await this.listen(false);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.keepAlive);
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
      // One simple-protocol query, two statements: the LISTEN, then the exemption on the same session.
      await client.unsafe(`listen ${NOTIFY_CHANNEL}; select ${EXEMPT_FROM_IDLE_TIMEOUT}`);
    } catch (error) {
      if (this.client === client) this.client = undefined;
      void client.end({ timeout: 0 });
      throw error;
    }
    if (this.stopped || this.client !== client) return;
    this.keepAliveOn(client);
    this.handlers?.onListening(reconnected);
  }

  private keepAliveOn(client: postgres.Sql): void {
    clearInterval(this.keepAlive);
    this.keepAlive = setInterval(() => {
      if (client === this.client) void client`select 1`.catch(() => {});
    }, this.keepAliveMs);
    this.keepAlive.unref();
  }

  private lost(client: postgres.Sql): void {
    if (this.stopped || client !== this.client) return;
    this.client = undefined;
    clearInterval(this.keepAlive);
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
