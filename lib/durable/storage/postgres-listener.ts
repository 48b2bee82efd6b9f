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
import { scopeKey, type WatchScope, watchStatement } from './watch-locks';

const RECONNECT_MS = [100, 500, 2000, 5000];

/** Opens a one-connection client with these hooks (postgres.js options `onnotify`, `onclose`). */
export type ListenClientFactory = (hooks: { onnotify(channel: string, payload: string): void; onclose(): void }) => postgres.Sql;

export class PostgresListener implements NotificationSource {
  private client: postgres.Sql | undefined;
  private handlers: NotificationHandlers | undefined;
  /** The scopes watched, by scopeKey, and how many subscriptions watch each (watch-locks.ts): one shared lock each on the LISTEN session. */
  private readonly watched = new Map<string, { scope: WatchScope; count: number; granted: Promise<void> }>();
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
    // A new session holds none of the watch locks the lost one held: taken again before the subscribers catch up.
    if (reconnected) {
      for (const entry of this.watched.values()) entry.granted = this.lock(client, entry.scope, 'lock');
      await Promise.all([...this.watched.values()].map((entry) => entry.granted));
    }
    if (this.stopped || this.client !== client) return;
    this.keepAliveOn(client);
    this.handlers?.onListening(reconnected);
  }

  /**
   * One shared lock per scope on the LISTEN session, however many subscriptions watch it: taken by the
   * first (the others wait for it to be granted), given back by the last.
   */
  async watch(scope: WatchScope): Promise<void> {
    const key = scopeKey(scope);
    let entry = this.watched.get(key);
    if (!entry) {
      // Without a session now, the reconnect takes it before it wakes the subscribers.
      entry = { scope, count: 0, granted: this.client ? this.lock(this.client, scope, 'lock') : Promise.resolve() };
      this.watched.set(key, entry);
    }
    entry.count += 1;
    await entry.granted;
  }

  async unwatch(scope: WatchScope): Promise<void> {
    const key = scopeKey(scope);
    const entry = this.watched.get(key);
    if (!entry) return;
    entry.count -= 1;
    if (entry.count > 0) return;
    this.watched.delete(key);
    await entry.granted;
    if (this.client) await this.lock(this.client, scope, 'unlock');
  }

  /** A failure is the session's (it reconnects, takes every watched lock again and wakes everyone): told, not thrown. */
  private async lock(client: postgres.Sql, scope: WatchScope, action: 'lock' | 'unlock'): Promise<void> {
    const [text, params] = watchStatement(scope, action);
    try {
      await client.unsafe(text, params);
    } catch (error) {
      if (client === this.client) this.handlers?.onError(error);
    }
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
