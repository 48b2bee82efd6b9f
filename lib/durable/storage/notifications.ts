/**
 * Live notifications: each append announces its run and new last sequence number on ONE channel,
 * `gnl_events`, with the payload `<lastSeq>:<runId>` (at most ~2 KB: runIds are 512 characters; the
 * NOTIFY limit is 8000 bytes). A notification is only a wake-up: subscribers read the events from the
 * journal after the sequence number they have, so a lost notification delays an event, never loses it.
 *
 * Where the NOTIFY is sent matters on Postgres: a NOTIFY inside an append's transaction takes the
 * server's global notify lock until that commit is flushed, so commits of ALL runs queue behind each
 * other. PostgresStorage therefore sends it after the append committed, from a CoalescingNotifier on
 * its side session, never awaited by the append. PGlite has one connection and no concurrent commits:
 * there the NOTIFY rides inside the append statement. bench/notify.ts measures both ways.
 */
import type { RunChange } from '../internal';
import type { WatchScope } from './watch-locks';

export const NOTIFY_CHANNEL = 'gnl_events';

/** How a storage's appends announce themselves. */
export type Announcer =
  | { mode: 'in-statement' }
  | { mode: 'after-commit'; announce(runId: string, lastSeq: number): void; announceStream(runId: string, batchId: number): void };

export function notificationPayload(runId: string, lastSeq: number): string {
  return `${lastSeq}:${runId}`;
}

/**
 * A batch of a run's stream was written (stream-log.ts): `s<batch id>:<runId>` on the same channel. Event
 * followers never mistake it for an append (parseNotification refuses it), and stream followers read
 * the batches after the id they have.
 */
export function streamNotificationPayload(runId: string, batchId: number): string {
  return `s${batchId}:${runId}`;
}

export function parseStreamNotification(payload: string): { runId: string; batchId: number } | undefined {
  if (!payload.startsWith('s')) return undefined;
  const change = parseNotification(payload.slice(1));
  return change ? { runId: change.runId, batchId: change.lastSeq } : undefined;
}

export function parseNotification(payload: string): RunChange | undefined {
  const colon = payload.indexOf(':');
  const lastSeq = Number(payload.slice(0, colon));
  if (colon < 1 || !Number.isSafeInteger(lastSeq)) return undefined;
  return { runId: payload.slice(colon + 1), lastSeq };
}

/** How long announcements gather before one NOTIFY carries them (CoalescingNotifier): the live view's added latency. */
export const NOTIFY_WINDOW_MS = 10;

/**
 * Sends after-commit notifications without making anyone wait: announcements gather for `windowMs`,
 * then go out in one NOTIFY statement (one payload per run, its highest sequence number); at most one
 * statement is in flight, and what comes meanwhile waits for the next window. A run appending every
 * millisecond costs one NOTIFY per window instead of one per append (bench/notify.ts; issue 17's
 * statements per checkpoint). A failed send is reported and dropped: subscribers catch up by reading.
 */
export class CoalescingNotifier {
  /** Per run: the highest sequence number appended, and the highest stream batch written, not yet announced. */
  private readonly waiting = new Map<string, number>();
  private readonly waitingStreams = new Map<string, number>();
  private flushing: Promise<void> | undefined;

  constructor(
    /** Sends one NOTIFY per payload, in one statement. */
    private readonly send: (payloads: string[]) => Promise<void>,
    private readonly onError: (error: unknown) => void = () => {},
    /** How long announcements gather before a send (default NOTIFY_WINDOW_MS; 0: the next tick). */
    private readonly windowMs = NOTIFY_WINDOW_MS,
  ) {}

  announce(runId: string, lastSeq: number): void {
    if ((this.waiting.get(runId) ?? 0) < lastSeq) this.waiting.set(runId, lastSeq);
    this.flushing ??= this.flush();
  }

  announceStream(runId: string, batchId: number): void {
    if ((this.waitingStreams.get(runId) ?? 0) < batchId) this.waitingStreams.set(runId, batchId);
    this.flushing ??= this.flush();
  }

  /** Resolves when every announcement so far was sent (or dropped). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.size > 0 || this.waitingStreams.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, this.windowMs));
        const payloads = [
          ...[...this.waiting].map(([runId, lastSeq]) => notificationPayload(runId, lastSeq)),
          ...[...this.waitingStreams].map(([runId, batchId]) => streamNotificationPayload(runId, batchId)),
        ];
        this.waiting.clear();
        this.waitingStreams.clear();
        await this.send(payloads).catch(this.onError);
      }
    } finally {
      this.flushing = undefined;
    }
  }
}

/** Where notifications are heard: one LISTEN per storage, shared by all its subscriptions. */
export interface NotificationSource {
  /** Starts listening; resolves once the first LISTEN is active. */
  start(handlers: NotificationHandlers): Promise<void>;
  stop(): Promise<void>;
  /**
   * Tells writers that someone listens for `scope`, until `unwatch` (watch-locks.ts). Resolves once every
   * write in flight that did not know it has committed: what the caller reads after that includes them,
   * and every later write is announced. Absent: every write is announced (PGlite).
   */
  watch?(scope: WatchScope): Promise<void>;
  unwatch?(scope: WatchScope): Promise<void>;
}

export interface NotificationHandlers {
  onNotify(payload: string): void;
  /** LISTEN is active: first at start, then after every reconnect (`reconnected: true`; notifications in between are lost). */
  onListening(reconnected: boolean): void;
  /** The connection was lost (a reconnect follows) or a reconnect failed (another follows). */
  onError(error: unknown): void;
}
