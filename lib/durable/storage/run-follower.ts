/**
 * One subscriber following one run: it reads the journal after the last sequence number it delivered,
 * whenever it is woken (a notification with a higher lastSeq, a listener reconnect, its own start).
 * Reads never overlap and `delivered` only moves after onEvents returns, so every event is delivered
 * once, in order; a wake-up that comes while a read runs makes the loop read once more.
 */
import type { RecordedEvent, SubscribeOptions } from '../internal';

/** Events per read: a long run is caught up in pages. */
const PAGE = 500;
const RETRY_MS = [250, 1000, 5000];

export type ReadEvents = (runId: string, afterSeq: number, limit: number) => Promise<RecordedEvent[]>;

export class RunFollower {
  readonly runId: string;
  private delivered: number;
  private reading: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: SubscribeOptions,
    private readonly read: ReadEvents,
    private readonly onClose: (follower: RunFollower) => void,
  ) {
    this.runId = options.runId;
    this.delivered = options.afterSeq ?? 0;
  }

  /** Something may have been appended: read unless `lastSeq` says it is already delivered. */
  wake(lastSeq?: number): void {
    if (this.closed || (lastSeq !== undefined && lastSeq <= this.delivered)) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.catchUp().finally(() => {
      this.reading = undefined;
    });
  }

  reportError(error: unknown): void {
    if (!this.closed) this.options.onError?.(error);
  }

  /** No onEvents call starts after this (one running now finishes; close may be called from inside it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.onClose(this);
  }

  private async catchUp(): Promise<void> {
    do {
      this.again = false;
      let events: RecordedEvent[];
      try {
        events = await this.read(this.runId, this.delivered, PAGE);
        this.failures = 0;
      } catch (error) {
        this.options.onError?.(error);
        this.retryLater();
        return;
      }
      const fresh = events.filter((event) => event.seq > this.delivered);
      if (this.closed) return;
      if (fresh.length > 0) {
        try {
          await this.options.onEvents(fresh);
        } catch (error) {
          this.options.onError?.(error);
          this.close();
          return;
        }
        this.delivered = (fresh[fresh.length - 1] as RecordedEvent).seq;
      }
      if (events.length === PAGE) this.again = true;
    } while (this.again && !this.closed);
  }

  private retryLater(): void {
    const delay = RETRY_MS[Math.min(this.failures++, RETRY_MS.length - 1)];
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.wake(), delay);
    this.retryTimer.unref?.();
  }
}
