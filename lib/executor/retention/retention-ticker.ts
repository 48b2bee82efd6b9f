/**
 * The scheduled retention job: every executor given retention settings looks every quarter interval
 * (at most every 5 minutes) whether a pass is due, and at most one executor starts one per interval:
 * starting a pass is moving gnl.maintenance_passes' `last_started_at` (database clock) forward past the
 * interval in one statement, which only one of several executors trying at once can do. A pass drops
 * expired runs a batch at a time (retention.ts), at most `maxBatches` batches; what is left waits for
 * the next pass. Two passes overlapping (one outlived its interval) is safe: each run's drop re-checks
 * it under the run's row lock, and a run already dropped is skipped as gone.
 */
import { sql } from 'drizzle-orm';
import type { Storage } from '@/lib/durable/storage';
import { dropExpiredMemoryBatches } from './memory-retention';
import { dropExpiredRuns, type RetentionCursor } from './retention';
import type { RetentionPolicy, RetentionSettings } from './retention-policy';

export type RetentionEvent = { type: 'retention-pass' } & RetentionPassReport;

export interface RetentionPassReport {
  dropped: number;
  skipped: number;
  batches: number;
  /** The pass stopped at maxBatches with more runs (or memory) eligible. */
  more: boolean;
  /** Memory retention (GNL_MEMORY_RETENTION_DAYS): resources trimmed, and what they lost. */
  memory: { resources: number; items: number; versions: number };
}

export interface RetentionTickerOptions {
  storage: Storage;
  policy: RetentionPolicy;
  settings: RetentionSettings;
  /** Who drops (gnl.retention_log's dropped_by, gnl.maintenance_passes' last_owner). */
  owner: string;
  onEvent?: (event: RetentionEvent) => void;
  onError?: (error: unknown) => void;
}

const JOB = 'retention';

export class RetentionTicker {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private passing: Promise<unknown> = Promise.resolve();
  private readonly intervalMs: number;

  constructor(private readonly options: RetentionTickerOptions) {
    this.intervalMs = options.settings.intervalMs ?? 3_600_000;
  }

  /** True when the policy drops anything at all (runs, or memory). */
  get active(): boolean {
    return this.options.policy.agents.length > 0 || this.options.settings.memoryDays !== undefined;
  }

  start(): void {
    if (this.running || !this.active) return;
    this.running = true;
    this.wakeIn(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.passing;
  }

  /** A pass now, if no executor started one within the interval (`force`: whatever the interval). Undefined: not this executor's turn. */
  async pass(options: { force?: boolean; now?: Date } = {}): Promise<RetentionPassReport | undefined> {
    if (!this.active) return undefined;
    if (!(await this.claim(options.force === true))) return undefined;
    const report: RetentionPassReport = { dropped: 0, skipped: 0, batches: 0, more: false, memory: { resources: 0, items: 0, versions: 0 } };
    const maxBatches = this.options.settings.maxBatches ?? 50;
    let after: RetentionCursor | undefined;
    for (; this.options.policy.agents.length > 0; ) {
      const batch = await dropExpiredRuns({
        storage: this.options.storage,
        policy: this.options.policy,
        droppedBy: this.options.owner,
        ...(this.options.settings.batchSize ? { batchSize: this.options.settings.batchSize } : {}),
        ...(options.now ? { now: options.now } : {}),
        ...(after ? { after } : {}),
      });
      report.batches += 1;
      report.dropped += batch.dropped.length;
      report.skipped += batch.skipped.length;
      after = batch.cursor;
      if (!batch.more) break;
      if (report.batches >= maxBatches || (!this.running && !options.force)) {
        report.more = true;
        break;
      }
    }
    if (this.options.settings.memoryDays !== undefined) await this.memoryPass(report, maxBatches, options);
    this.emit({ type: 'retention-pass', ...report });
    return report;
  }

  /** Memory older than GNL_MEMORY_RETENTION_DAYS, a batch of resources at a time, against one cut for the whole pass. */
  private async memoryPass(report: RetentionPassReport, maxBatches: number, options: { force?: boolean; now?: Date }): Promise<void> {
    const { dropped, more } = await dropExpiredMemoryBatches({
      storage: this.options.storage,
      days: this.options.settings.memoryDays as number,
      droppedBy: this.options.owner,
      maxBatches,
      stop: () => !this.running && !options.force,
      ...(this.options.settings.batchSize ? { batchSize: this.options.settings.batchSize } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    if (more) report.more = true;
    report.memory.resources += dropped.length;
    for (const resource of dropped) {
      report.memory.items += resource.items;
      report.memory.versions += resource.versions;
    }
  }

  /** Starts a pass in gnl.maintenance_passes if none started within the interval: true if this call did. */
  private async claim(force: boolean): Promise<boolean> {
    const db = await this.options.storage.database();
    const seconds = force ? 0 : this.intervalMs / 1000;
    const result = (await db.execute(
      sql`insert into gnl.maintenance_passes (job, last_started_at, last_owner) values (${JOB}, now(), ${this.options.owner})
          on conflict (job) do update set last_started_at = now(), last_owner = excluded.last_owner
          where gnl.maintenance_passes.last_started_at <= now() - make_interval(secs => ${seconds}::float8)
          returning job`,
    )) as unknown;
    const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
    return rows.length > 0;
  }

  private wakeIn(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      this.passing = this.pass()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => this.wakeIn(Math.max(1_000, Math.min(this.intervalMs / 4, 300_000))));
    }, delayMs);
    this.timer.unref?.();
  }

  private emit(event: RetentionEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // a listener's failure is not the job's
    }
  }
}
