/**
 * The Overview page's statements: runs by status per day, how long people take to decide, tokens (and
 * billed tokens per model, for cost) per agent per day, the oldest item waiting for a person. Each over a window (`since`) and, optionally, one
 * agent. They start from `gnl.runs` (created or updated in the window) and read a run's events on the
 * primary key's run_id range, so their cost follows the runs active in the window, not the journal's size.
 * Days are UTC. Pure SQL building (drizzle `sql`); tested on both journals (overview.test.ts).
 */
import { type SQL, sql } from 'drizzle-orm';
import { modelTokenSumsSql, stepTokensSql } from './usage-sql';

export interface OverviewScope {
  /** The window's start (ISO instant). */
  since: string;
  /** Only this agent's runs (`input->>'agent'`). */
  agent?: string;
}

const agentIs = (scope: OverviewScope, runs: SQL) => (scope.agent === undefined ? sql`true` : sql`(${runs}.input->>'agent') = ${scope.agent}`);
const day = (at: SQL) => sql`to_char(${at} at time zone 'UTC', 'YYYY-MM-DD')`;

/** Rows `{ day, status, runs }`: runs created that day, by the status they have now. */
export function statusByDayStatement(scope: OverviewScope): SQL {
  return sql`select ${day(sql`r.created_at`)} as day, r.status, count(*)::int as runs
    from gnl.runs r where r.created_at >= ${scope.since}::timestamptz and ${agentIs(scope, sql`r`)}
    group by 1, 2 order by 1, 2`;
}

/**
 * One row `{ decisions, median_s, p90_s }`: the seconds from a question to a person's answer. An
 * approval or rejection (not a policy's, not an expiry) from its `tool-approval-request`; a settled side
 * effect or a provided tool result from the `run-suspend` before it (when the run stopped for it).
 */
export function decisionTimesStatement(scope: OverviewScope): SQL {
  return sql`select count(*)::int as decisions,
      percentile_cont(0.5) within group (order by x.secs) as median_s,
      percentile_cont(0.9) within group (order by x.secs) as p90_s
    from (
      select extract(epoch from (d.created_at - q.created_at))::float8 as secs
      from gnl.runs r
      join gnl.run_events d on d.run_id = r.run_id
      cross join lateral (
        select q.created_at from gnl.run_events q
        where q.run_id = d.run_id and q.seq < d.seq and (
          (d.type = 'tool-approval-response' and q.type = 'tool-approval-request' and (q.payload->>'toolCallId') = (d.payload->>'toolCallId'))
          or (d.type <> 'tool-approval-response' and q.type = 'run-suspend'))
        order by q.seq desc limit 1
      ) q
      where r.updated_at >= ${scope.since}::timestamptz and ${agentIs(scope, sql`r`)} and d.created_at >= ${scope.since}::timestamptz
        and ((d.type = 'tool-approval-response' and (d.payload->'policy') is null and coalesce((d.payload->>'expired')::boolean, false) = false)
          or d.type = 'side-effect-resolution'
          or (d.type = 'tool-call-end' and (d.payload->>'source') = 'provided'))
    ) x`;
}

/** Rows `{ day, agent, tokens }`: input plus output tokens of the model steps recorded that day (the core's usage reader). */
export function tokensByAgentDayStatement(scope: OverviewScope): SQL {
  return sql`select ${day(sql`e.created_at`)} as day, coalesce(r.input->>'agent', '') as agent, sum(${stepTokensSql(sql`e.payload`)})::float8 as tokens
    from gnl.runs r join gnl.run_events e on e.run_id = r.run_id and e.type = 'model-step'
    where r.updated_at >= ${scope.since}::timestamptz and ${agentIs(scope, sql`r`)} and e.created_at >= ${scope.since}::timestamptz
    group by 1, 2 order by 1, 2`;
}

/**
 * Rows `{ day, agent, provider, model_id, steps, unmetered, uncached_input, … }`: the billed tokens of the
 * model steps recorded that day, per agent and model (usage-sql.ts), for pricing per agent and day (lib/cost).
 */
export function modelTokensByAgentDayStatement(scope: OverviewScope): SQL {
  return sql`select ${day(sql`e.created_at`)} as day, coalesce(r.input->>'agent', '') as agent, ${modelTokenSumsSql()}
    from gnl.runs r join gnl.run_events e on e.run_id = r.run_id and e.type = 'model-step'
    where r.updated_at >= ${scope.since}::timestamptz and ${agentIs(scope, sql`r`)} and e.created_at >= ${scope.since}::timestamptz
    group by 1, 2, 3, 4 order by 1, 2, 3, 4`;
}

/** At most one row `{ run_id, status, agent, pending, updated_at }`: the run waiting for people the longest (whatever the window). */
export function oldestWaitingStatement(scope: Pick<OverviewScope, 'agent'>): SQL {
  return sql`select r.run_id, r.status, r.input->>'agent' as agent, r.pending, r.updated_at
    from gnl.runs r where r.status in ('waiting-approval', 'waiting-tool-result', 'blocked') and ${agentIs({ since: '', ...scope }, sql`r`)}
    order by r.updated_at, r.run_id limit 1`;
}
