/**
 * The runs page's marks, one SQL expression each over the run's events (the primary key's run_id range),
 * by the projection's rules (lib/durable/projection/run-invocations.ts), which run-marks.test.ts checks them against
 * on both journals:
 * - interrupted: an invocation stopped without an end. A `run-resume` that finds the run still
 *   `running`, unless it directly follows what the run's creation wrote (startRun journals the start and an
 *   executor then begins the first invocation with a run-resume: that one is no resume; a fork's run-start
 *   comes with a copy of its parent's history, in the same transaction and instant).
 * Events written with the run-start (a fork's copy of its parent's history) are the parent's, not marks of this run.
 * - waited: the run suspended for people at least once (`run-suspend`).
 * - decided: a person decided (an approval or rejection not made by a policy, a settled side effect, a
 *   provided tool result).
 * - imported: the run came from an export (`run-imported`: gnl import); its history was recorded elsewhere.
 */
import { type SQL, sql } from 'drizzle-orm';

export function runMarksSql(runId: SQL): SQL {
  const own = sql`e.created_at <> (select st.created_at from gnl.run_events st where st.run_id = e.run_id and st.seq = 1)`;
  return sql`exists (select 1 from gnl.run_events e where e.run_id = ${runId} and e.type = 'run-resume' and (e.payload->>'fromStatus') = 'running' and ${own}
        and not exists (select 1 from gnl.run_events s where s.run_id = e.run_id and s.seq = e.seq - 1
          and s.created_at = (select st.created_at from gnl.run_events st where st.run_id = e.run_id and st.seq = 1))) as interrupted,
      exists (select 1 from gnl.run_events e where e.run_id = ${runId} and e.type = 'run-suspend' and ${own}) as waited,
      exists (select 1 from gnl.run_events e where e.run_id = ${runId} and ${own} and (
        (e.type = 'tool-approval-response' and (e.payload->'policy') is null and coalesce((e.payload->>'expired')::boolean, false) = false)
        or e.type = 'side-effect-resolution'
        or (e.type = 'tool-call-end' and (e.payload->>'source') = 'provided'))) as decided,
      exists (select 1 from gnl.run_events e where e.run_id = ${runId} and e.type = 'run-imported') as imported`;
}
