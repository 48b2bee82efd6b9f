/**
 * The storage's side of Journal.subscribe and Journal.watchRuns: one notification source (one LISTEN)
 * shared by every subscription of the storage, started on the first one. A notification wakes the
 * followers of its run; a (re)connect wakes every follower, since notifications sent while the
 * listener was away are gone, and tells run watchers to resync.
 */
import { assertValidRunId, type RunChange, type SubscribeOptions, type Subscription, type WatchRunsOptions, type WatchStreamOptions } from '../internal';
import { type NotificationSource, parseNotification, parseStreamNotification } from './notifications';
import { type ReadEvents, RunFollower } from './run-follower';
import type { WatchScope } from './watch-locks';

export class LiveEvents {
  private readonly followers = new Map<string, Set<RunFollower>>();
  private readonly watchers = new Set<WatchRunsOptions>();
  private readonly streamWatchers = new Map<string, Set<WatchStreamOptions>>();
  private started: Promise<void> | undefined;

  constructor(
    private readonly source: NotificationSource,
    private readonly read: ReadEvents,
  ) {}

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    assertValidRunId(options.runId);
    const follower = new RunFollower(options, this.read, (f) => this.forget(f));
    const set = this.followers.get(follower.runId) ?? new Set();
    set.add(follower);
    this.followers.set(follower.runId, set);
    try {
      await this.start();
      await this.source.watch?.({ runId: follower.runId }); // writers announce from now on (watch-locks.ts)
    } catch (error) {
      follower.close();
      throw error;
    }
    follower.wake(); // what was recorded before LISTEN was active, and before writers knew of this follower
    return { close: async () => follower.close() };
  }

  async watchRuns(options: WatchRunsOptions): Promise<Subscription> {
    this.watchers.add(options);
    let watching = false;
    try {
      await this.start();
      await this.source.watch?.('every-run');
      watching = true;
    } catch (error) {
      this.watchers.delete(options);
      throw error;
    }
    return {
      close: async () => {
        if (!this.watchers.delete(options) || !watching) return;
        await this.unwatch('every-run');
      },
    };
  }

  /** Wakes `onWake` on each stream notification of the run and after every reconnect. */
  async watchStream(options: WatchStreamOptions): Promise<Subscription> {
    assertValidRunId(options.runId);
    const set = this.streamWatchers.get(options.runId) ?? new Set();
    set.add(options);
    this.streamWatchers.set(options.runId, set);
    let watching = false;
    const forget = async () => {
      if (!set.delete(options)) return;
      if (set.size === 0 && this.streamWatchers.get(options.runId) === set) this.streamWatchers.delete(options.runId);
      if (watching) await this.unwatch({ runId: options.runId });
    };
    try {
      await this.start();
      await this.source.watch?.({ runId: options.runId });
      watching = true;
    } catch (error) {
      await forget();
      throw error;
    }
    // Batches written before writers knew of this watcher were not announced: the caller reads after this resolves.
    return { close: forget };
  }

  async stop(): Promise<void> {
    this.streamWatchers.clear();
    for (const set of this.followers.values()) for (const follower of set) follower.close();
    this.watchers.clear();
    if (this.started) await this.source.stop();
  }

  private start(): Promise<void> {
    this.started ??= this.source
      .start({
        onNotify: (payload) => {
          const stream = parseStreamNotification(payload);
          if (stream) this.streamWritten(stream.runId);
          else this.notified(parseNotification(payload));
        },
        onListening: (reconnected) => {
          if (!reconnected) return;
          for (const set of this.streamWatchers.values()) for (const watcher of set) this.wakeStream(watcher);
          for (const set of this.followers.values()) for (const follower of set) follower.wake();
          for (const watcher of this.watchers) watcher.onResync?.();
        },
        onError: (error) => this.reportError(error),
      })
      .catch((error) => {
        this.started = undefined;
        throw error;
      });
    return this.started;
  }

  private notified(change: RunChange | undefined): void {
    if (!change) return;
    for (const follower of this.followers.get(change.runId) ?? []) follower.wake(change.lastSeq);
    for (const watcher of this.watchers) {
      try {
        watcher.onChange(change);
      } catch (error) {
        watcher.onError?.(error);
      }
    }
  }

  private streamWritten(runId: string): void {
    for (const watcher of this.streamWatchers.get(runId) ?? []) this.wakeStream(watcher);
  }

  private wakeStream(watcher: WatchStreamOptions): void {
    try {
      watcher.onWake();
    } catch (error) {
      watcher.onError?.(error);
    }
  }

  reportError(error: unknown): void {
    for (const set of this.streamWatchers.values()) for (const watcher of set) watcher.onError?.(error);
    for (const set of this.followers.values()) for (const follower of set) follower.reportError(error);
    for (const watcher of this.watchers) watcher.onError?.(error);
  }

  private forget(follower: RunFollower): void {
    const set = this.followers.get(follower.runId);
    if (!set?.delete(follower)) return;
    if (set.size === 0) this.followers.delete(follower.runId);
    void this.unwatch({ runId: follower.runId });
  }

  /** One watch given back (watch-locks.ts); a failure is the listener session's, which reconnects. */
  private async unwatch(scope: WatchScope): Promise<void> {
    try {
      await this.source.unwatch?.(scope);
    } catch (error) {
      this.reportError(error);
    }
  }
}
