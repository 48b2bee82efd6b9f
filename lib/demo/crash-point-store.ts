/**
 * Where the demo keeps the crash point each demo run was started with (gnl.demo_crash_points, migration
 * 0010), and the hook that arms it around every invocation of that run. The run may be invoked by any
 * process sharing the database (a worker, the Studio's server after the crash restarted it), so the
 * choice lives in the database, not in the process that started the run. The executor knows nothing of
 * this: whoever makes an executor for the demo installs `aroundInvocation` (its AroundInvocation seam).
 *
 * Arm before starting the run: an executor may claim a new run the moment it is queued, and an
 * invocation that found nothing armed runs without its crash point. The first arming of a run id wins.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type CrashPoint, crashPointSchema, withCrashPoint } from './crash-points';

/** What the store needs of a storage: its migrated database (Storage.database()), by shape. */
export interface CrashPointDatabase {
  execute(statement: SQL): PromiseLike<unknown>;
}

export class CrashPointStore {
  constructor(private readonly storage: { database(): Promise<CrashPointDatabase> }) {}

  /** Records `point` for every invocation of `runId` (refused with the valid points if it is none). */
  async arm(runId: string, point: CrashPoint): Promise<void> {
    const parsed = crashPointSchema.safeParse(point);
    if (!parsed.success) throw new TypeError(`crashAt: "${point}" is not a crash point: use one of ${crashPointSchema.options.join(', ')}.`);
    await this.rows(sql`insert into gnl.demo_crash_points (run_id, crash_at) values (${runId}, ${parsed.data}) on conflict (run_id) do nothing`);
  }

  /** The crash point armed for `runId`, if any. */
  async armedFor(runId: string): Promise<CrashPoint | undefined> {
    const [row] = await this.rows<{ crashAt: string }>(sql`select crash_at as "crashAt" from gnl.demo_crash_points where run_id = ${runId}`);
    return row ? crashPointSchema.parse(row.crashAt) : undefined;
  }

  /**
   * The executor's `aroundInvocation`: the invocation runs with the run's crash point armed, or as it is
   * (GNL_DEMO_CRASH_AT, the process's own, still applies) when the run has none.
   */
  readonly aroundInvocation = async <T>(run: { runId: string }, invoke: () => Promise<T>): Promise<T> => {
    const point = await this.armedFor(run.runId);
    return point ? withCrashPoint(point, invoke) : invoke();
  };

  private async rows<T>(statement: SQL): Promise<T[]> {
    const result = await (await this.storage.database()).execute(statement);
    // postgres.js answers the rows, PGlite an object holding them.
    return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
  }
}
