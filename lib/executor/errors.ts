/**
 * The executor layer's errors: GnlErrors (recognised across bundles with `isInstance`), each carrying
 * what the caller needs to act.
 */
import { GnlError } from '@/lib/durable';

function hasName<T>(name: string) {
  return (error: unknown): error is T => GnlError.isInstance(error) && error.name === name;
}

export type NotResumableReason = 'unknown-run' | 'no-agent' | 'completed' | 'canceled' | 'abandoned' | 'blocked';

/** resumeRun, cancelRun, abandonRun or restartRun was asked about a run it cannot act on. */
export class RunNotResumableError extends GnlError {
  override name = 'RunNotResumableError';
  readonly runId: string;
  readonly reason: NotResumableReason;
  constructor(args: { runId: string; reason: NotResumableReason; detail?: string }) {
    const what: Record<NotResumableReason, string> = {
      'unknown-run': 'does not exist',
      'no-agent': 'was not started by a registered agent (runDurable called directly), so no executor can resume it',
      completed: 'is completed',
      canceled: 'was canceled',
      abandoned: 'was abandoned',
      blocked: 'is blocked on a side effect of unknown outcome: it is not restarted as the same job',
    };
    super(`Run "${args.runId}" ${what[args.reason]}${args.detail ? ` (${args.detail})` : ''}.`);
    this.runId = args.runId;
    this.reason = args.reason;
  }
  static override isInstance = hasName<RunNotResumableError>('RunNotResumableError');
}

/** Workers share runs through Postgres; the embedded journal serves one process. */
export class WorkersNeedPostgresError extends GnlError {
  override name = 'WorkersNeedPostgresError';
  constructor() {
    super(
      'Workers need Postgres: set DATABASE_URL (postgres://…). The embedded journal (PGlite, no DATABASE_URL) serves one process per data folder, ' +
        'so there the Studio server executes runs itself.',
    );
  }
  static override isInstance = hasName<WorkersNeedPostgresError>('WorkersNeedPostgresError');
}

/**
 * Thrown at a step boundary (before the next model call) when this executor stops (SIGTERM) or lost
 * the run's lease: the invocation ends there, the run stays runnable, and another executor resumes it.
 * The journal records it as the invocation's `run-fail`, followed by the next executor's `run-resume`.
 */
export class InvocationStoppedError extends GnlError {
  override name = 'InvocationStoppedError';
  readonly runId: string;
  readonly why: 'stopping' | 'lease-lost';
  constructor(args: { runId: string; owner: string; why: 'stopping' | 'lease-lost' }) {
    super(
      `Executor ${args.owner} ${args.why === 'stopping' ? 'is stopping' : 'lost the lease'}: run "${args.runId}" stopped at a step boundary; another executor resumes it.`,
    );
    this.runId = args.runId;
    this.why = args.why;
  }
  static override isInstance = hasName<InvocationStoppedError>('InvocationStoppedError');
}

export type MigrationRefusedReason = 'unknown-run' | 'no-agent' | 'finished' | 'unknown-version' | 'same-version' | 'unsafe';

/**
 * previewMigration or migrateRun cannot move the run to the version asked: it is unknown or finished,
 * the version is not registered or is the run's own, or (`unsafe`) the preview found refusals and the
 * request did not override them (force). `refusals` lists them as the preview words them.
 */
export class MigrationRefusedError extends GnlError {
  override name = 'MigrationRefusedError';
  readonly runId: string;
  readonly reason: MigrationRefusedReason;
  readonly refusals: string[];
  constructor(args: { runId: string; reason: MigrationRefusedReason; detail?: string; refusals?: string[] }) {
    const what: Record<MigrationRefusedReason, string> = {
      'unknown-run': 'does not exist',
      'no-agent': 'was not started by a registered agent, so it has no versions to move between',
      finished: 'has finished: there is nothing left to run on another version',
      'unknown-version': 'cannot move to a version that is not registered',
      'same-version': 'already runs on that version (its start input matches it)',
      unsafe: 'would read its recorded history differently on that version; force the migration (with a reason) only if that is what you want',
    };
    const refusals = args.refusals ?? [];
    super(`Run "${args.runId}" ${what[args.reason]}${args.detail ? ` (${args.detail})` : ''}${refusals.length ? `: ${refusals.join('; ')}` : ''}.`);
    this.runId = args.runId;
    this.reason = args.reason;
    this.refusals = refusals;
  }
  static override isInstance = hasName<MigrationRefusedError>('MigrationRefusedError');
}

export type BulkActionErrorReason = 'invalid' | 'unknown-preview' | 'incomplete' | 'applied-already' | 'expired' | 'other-action';

/** A bulk preview or apply refused before it changed anything: bad input, or a preview that cannot be applied (unknown, unfinished, applied, expired, another action's). */
export class BulkActionError extends GnlError {
  override name = 'BulkActionError';
  readonly reason: BulkActionErrorReason;
  readonly previewId: string | undefined;
  constructor(args: { reason: BulkActionErrorReason; message: string; previewId?: string; cause?: unknown }) {
    super(args.message, args.cause === undefined ? undefined : { cause: args.cause });
    this.reason = args.reason;
    this.previewId = args.previewId;
  }
  static override isInstance = hasName<BulkActionError>('BulkActionError');
}

export type ScheduleActionErrorReason = 'invalid' | 'unknown-schedule' | 'not-declared';

/** An operator's schedule action (pause, unpause, run now) refused before it changed anything. */
export class ScheduleActionError extends GnlError {
  override name = 'ScheduleActionError';
  readonly reason: ScheduleActionErrorReason;
  readonly scheduleId: string;
  constructor(args: { reason: ScheduleActionErrorReason; scheduleId: string; message: string; cause?: unknown }) {
    super(args.message, args.cause === undefined ? undefined : { cause: args.cause });
    this.reason = args.reason;
    this.scheduleId = args.scheduleId;
  }
  static override isInstance = hasName<ScheduleActionError>('ScheduleActionError');
}
