/**
 * The judge of "one writer at a time", from the database's side: a trigger the test installs in its own
 * database records, for every journal row inserted, the application_name of the session that inserted
 * it (each fault worker connects under its own, fault-worker.ts). An invocation is the run's events from
 * one `run-resume` to the next: all of its events must come from one worker. A worker that appended
 * after its run was taken over (a fencing failure) shows up as a second writer inside another
 * invocation. Also checked per run: seq contiguous from 1, one `run-complete`, at most one outcome per
 * tool call (its end, or an error that is final: an error marked retryable is an attempt the call makes
 * again, as a read-only lookup does after a failed request, not an outcome).
 */
import { sql } from 'drizzle-orm';
import type { PostgresStorage } from '@/lib/durable/storage';

type Database = Awaited<ReturnType<PostgresStorage['database']>>;

export async function installAudit(db: Database): Promise<void> {
  await db.execute(
    sql.raw(`
    create table if not exists public.fault_audit (
      run_id text not null, seq int not null, type text not null, writer text not null, backend int not null,
      primary key (run_id, seq));
    create or replace function public.fault_audit_row() returns trigger language plpgsql as $$
    begin
      insert into public.fault_audit values (new.run_id, new.seq, new.type, current_setting('application_name'), pg_backend_pid());
      return null;
    end $$;
    drop trigger if exists fault_audit on gnl.run_events;
    create trigger fault_audit after insert on gnl.run_events for each row execute function public.fault_audit_row();`),
  );
}

/** What a person or a caller appends to a run that waits (journal.approve, reject, resolve, resume, cancel). */
const BETWEEN_INVOCATIONS = new Set(['tool-approval-response', 'tool-approval-vote', 'side-effect-resolution', 'run-resume-request', 'run-cancel']);

export interface RunAudit {
  runId: string;
  events: number;
  invocations: number;
  /** Invocations that ended without a terminal event of their own (taken over, or the journal failed under them). */
  cutShort: number;
  writers: string[];
  problems: string[];
}

/** Audits every run of the database; `problems` empty means the journal is sound. */
export async function auditRuns(db: Database): Promise<RunAudit[]> {
  const rows = (await db.execute(sql`
    select a.run_id as "runId", a.seq, a.type, a.writer, (e.payload->>'toolCallId') as "toolCallId", (e.payload->>'retryable') = 'true' as "retryable"
    from public.fault_audit a join gnl.run_events e on e.run_id = a.run_id and e.seq = a.seq
    order by a.run_id, a.seq`)) as unknown as {
    runId: string;
    seq: number;
    type: string;
    writer: string;
    toolCallId: string | null;
    retryable: boolean | null;
  }[];
  const [missing] = (await db.execute(sql`
    select count(*)::int as n from gnl.run_events e where not exists (select 1 from public.fault_audit a where a.run_id = e.run_id and a.seq = e.seq)`)) as unknown as {
    n: number;
  }[];
  const byRun = new Map<string, typeof rows>();
  for (const row of rows) byRun.set(row.runId, [...(byRun.get(row.runId) ?? []), row]);
  const audits: RunAudit[] = [];
  for (const [runId, events] of byRun) {
    const problems: string[] = [];
    if (missing && missing.n > 0) problems.push(`${missing.n} journal rows were written before the audit was installed`);
    events.forEach((e, i) => {
      if (e.seq !== i + 1) problems.push(`seq ${e.seq} at position ${i + 1}: not contiguous`);
    });
    const completes = events.filter((e) => e.type === 'run-complete').length;
    if (completes !== 1) problems.push(`${completes} run-complete events`);
    const outcomes = new Map<string, number>();
    for (const e of events)
      if ((e.type === 'tool-call-end' || (e.type === 'tool-call-error' && e.retryable !== true)) && e.toolCallId)
        outcomes.set(e.toolCallId, (outcomes.get(e.toolCallId) ?? 0) + 1);
    for (const [id, n] of outcomes) if (n > 1) problems.push(`tool call ${id} has ${n} outcomes`);
    let invocations = 0;
    let cutShort = 0;
    let writer: string | undefined;
    let open = false;
    const writers = new Set<string>();
    for (const e of events) {
      if (e.type === 'run-start') continue;
      if (e.type === 'run-resume') {
        if (open) cutShort += 1;
        invocations += 1;
        writer = e.writer;
        open = true;
        writers.add(e.writer);
        continue;
      }
      // A person's decision or request between invocations (after a run-suspend) is theirs to write.
      if (!open && BETWEEN_INVOCATIONS.has(e.type)) continue;
      if (writer === undefined) problems.push(`${e.type} at seq ${e.seq} before any run-resume`);
      else if (e.writer !== writer) problems.push(`${e.type} at seq ${e.seq} written by ${e.writer} inside ${writer}'s invocation`);
      if (e.type === 'run-complete' || e.type === 'run-fail' || e.type === 'run-suspend') open = false;
    }
    // With a problem, the run's whole story: seq:type@writer.
    if (problems.length > 0) problems.push(`journal: ${events.map((e) => `${e.seq}:${e.type}@${e.writer}`).join(' ')}`);
    audits.push({ runId, events: events.length, invocations, cutShort, writers: [...writers], problems });
  }
  return audits;
}
