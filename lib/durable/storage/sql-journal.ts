/**
 * The one SQL implementation of the Journal port, shared by PostgresStorage and PGliteStorage.
 *
 * An append is ONE statement: it bumps the run's last_seq (taking the row lock, which orders all
 * writers of a run), inserts the events numbered from the old last_seq, and updates the summary the
 * listings read. One round trip, one commit, and sequence numbers are contiguous by construction.
 * Decisions read the run under that row lock, plan with the core's pure planDecision, and append in
 * the same transaction.
 */
import { type SQL, sql } from 'drizzle-orm';
import {
  type ApprovalDecisionRequest,
  approvalDecisionSchema,
  type Decision,
  type DecisionRequest,
  JournalDataError,
  HoldLostError,
  type Journal,
  type JournalEvent,
  type ListRunsOptions,
  planDecision,
  type RecordedEvent,
  type RunHold,
  type RunInput,
  type RunPage,
  type RunSummary,
  type SideEffectResolutionRequest,
  sideEffectResolutionSchema,
  summaryChange,
  decodeJson,
  encodeJson,
  assertValidRunId,
  type PendingItem,
  isRunStatus,
} from '../internal';
import { type Db, query, type TransactionalDb } from './sql-rows';
import { z } from 'zod';

/** Takes and gives back the right to append to a run; returns the db to append through. */
export interface HoldProvider {
  /**
   * `guard`, when given, is a condition every append checks inside its own statement: true while the
   * hold is still this writer's. An append whose guard fails writes nothing and rejects with HoldLostError.
   */
  acquire(runId: string): Promise<{ db: Db; guard?: SQL; release(): Promise<void> }>;
}

type EventRow = { seq: number; type: string; payload: unknown; created_at: Date };
type RunRow = {
  run_id: string;
  status: string;
  input: unknown;
  step_count: number;
  last_seq: number;
  pending: unknown;
  created_at: Date;
  updated_at: Date;
  created_at_text?: string;
};

const listOptionsSchema = z.object({
  status: z.string().refine(isRunStatus, 'unknown run status').optional(),
  limit: z.number().int().min(1).max(500).default(50),
  cursor: z.string().max(2000).optional(),
});
const eventsOptionsSchema = z.object({ afterSeq: z.number().int().min(0).default(0), limit: z.number().int().min(1).optional() });

export class SqlJournal implements Journal {
  constructor(
    private readonly db: () => Promise<TransactionalDb>,
    private readonly holds: HoldProvider,
  ) {}

  async hold(runId: string): Promise<RunHold> {
    assertValidRunId(runId);
    await this.db(); // schema ready before the first append
    const held = await this.holds.acquire(runId);
    return new SqlRunHold(runId, held.db, held.guard, held.release);
  }

  async approve(request: ApprovalDecisionRequest): Promise<Decision> {
    return this.decide({ kind: 'approve', ...parse(approvalDecisionSchema, request, 'approve') });
  }

  async reject(request: ApprovalDecisionRequest): Promise<Decision> {
    return this.decide({ kind: 'reject', ...parse(approvalDecisionSchema, request, 'reject') });
  }

  async resolveSideEffect(request: SideEffectResolutionRequest): Promise<Decision> {
    return this.decide({ kind: 'resolve', ...parse(sideEffectResolutionSchema, request, 'resolveSideEffect') });
  }

  private async decide(request: DecisionRequest): Promise<Decision> {
    const db = await this.db();
    const decisionType = request.kind === 'resolve' ? 'side-effect-resolution' : 'tool-approval-response';
    return db.transaction(async (tx) => {
      const [run] = await query<{ pending: unknown }>(tx, sql`select pending from gnl.runs where run_id = ${request.runId} for update`);
      const [prior] = await query<{ by: string; created_at: Date }>(
        tx,
        sql`select payload->>'by' as by, created_at from gnl.run_events
            where run_id = ${request.runId} and type = ${decisionType} and payload->>'toolCallId' = ${request.toolCallId}
            order by seq desc limit 1`,
      );
      const plan = planDecision({
        request,
        pending: run ? decodeJson<PendingItem[]>(run.pending) : undefined,
        prior: prior ? { by: prior.by, at: new Date(prior.created_at) } : undefined,
        now: new Date(),
      });
      await appendEvents(tx, request.runId, [plan.event], plan.pending);
      return plan.decision;
    });
  }

  async getRun(runId: string): Promise<RunSummary | undefined> {
    assertValidRunId(runId);
    const [row] = await query<RunRow>(await this.db(), sql`select * from gnl.runs where run_id = ${runId}`);
    return row ? toSummary(row) : undefined;
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    const { status, limit, cursor } = parse(listOptionsSchema, options, 'listRuns');
    const after = cursor ? decodeCursor(cursor) : undefined;
    const rows = await query<RunRow>(
      await this.db(),
      sql`select *, created_at::text as created_at_text from gnl.runs
          where (${status ?? null}::text is null or status = ${status ?? null})
            and (${after?.createdAt ?? null}::timestamptz is null or (created_at, run_id) < (${after?.createdAt ?? null}::timestamptz, ${after?.runId ?? null}))
          order by created_at desc, run_id desc
          limit ${limit + 1}`,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      runs: page.map(toSummary),
      ...(rows.length > limit && last ? { nextCursor: encodeCursor({ createdAt: last.created_at_text as string, runId: last.run_id }) } : {}),
    };
  }

  async events(runId: string, options: { afterSeq?: number; limit?: number } = {}): Promise<RecordedEvent[]> {
    assertValidRunId(runId);
    const { afterSeq, limit } = parse(eventsOptionsSchema, options, 'events');
    return readEvents(await this.db(), runId, afterSeq, limit);
  }
}

class SqlRunHold implements RunHold {
  private released = false;
  constructor(
    readonly runId: string,
    private readonly db: Db,
    private readonly guard: SQL | undefined,
    private readonly releaseHold: () => Promise<void>,
  ) {}

  load(): Promise<RecordedEvent[]> {
    return readEvents(this.db, this.runId, 0, undefined);
  }

  async create(input: RunInput): Promise<RecordedEvent> {
    const payload = encodePayload({ input });
    const [row] = await query<{ seq: number; created_at: Date }>(
      this.db,
      sql`with r as (
            insert into gnl.runs (run_id, status, last_seq, step_count, input, pending)
            values (${this.runId}, 'running', 1, 0, ${JSON.stringify(encodeJson(input))}::jsonb, '[]'::jsonb)
            returning run_id)
          insert into gnl.run_events (run_id, seq, type, payload)
          select run_id, 1, 'run-start', ${payload}::jsonb from r
          returning seq, created_at`,
    );
    if (!row) throw new JournalDataError(`Run "${this.runId}" could not be created.`);
    return { type: 'run-start', input, seq: row.seq, at: new Date(row.created_at) };
  }

  async append(events: readonly JournalEvent[]): Promise<RecordedEvent[]> {
    if (this.released) throw new JournalDataError(`The hold on run "${this.runId}" was released; it cannot append.`);
    return appendEvents(this.db, this.runId, events, undefined, this.guard);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.releaseHold();
  }
}

async function appendEvents(
  db: Db,
  runId: string,
  events: readonly JournalEvent[],
  pendingOverride: PendingItem[] | undefined,
  guard?: SQL,
): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  // Encode first: data the journal cannot hold is refused before anything is written.
  const encoded = JSON.stringify(events.map(({ type, ...payload }) => ({ type, payload: encodeJson(payload) })));
  const change = summaryChange(events);
  const pending = pendingOverride ?? change.pending;
  const rows = await query<{ seq: number; created_at: Date }>(
    db,
    sql`with r as (
          update gnl.runs set
            last_seq = last_seq + ${events.length},
            step_count = step_count + ${change.stepDelta},
            status = coalesce(${change.status ?? null}::text, status),
            pending = coalesce(${pending ? JSON.stringify(encodeJson(pending)) : null}::jsonb, pending),
            updated_at = now()
          where run_id = ${runId} and ${guard ?? sql`true`}
          returning last_seq - ${events.length} as base)
        insert into gnl.run_events (run_id, seq, type, payload)
        select ${runId}, r.base + e.ord, e.value->>'type', e.value->'payload'
        from r, jsonb_array_elements(${encoded}::jsonb) with ordinality as e(value, ord)
        returning seq, created_at`,
  );
  if (rows.length !== events.length) {
    if (guard) throw new HoldLostError({ runId });
    throw new JournalDataError(`Run "${runId}" does not exist; nothing was appended.`);
  }
  rows.sort((a, b) => a.seq - b.seq);
  return events.map((event, i) => ({ ...event, seq: (rows[i] as { seq: number }).seq, at: new Date((rows[i] as { created_at: Date }).created_at) }));
}

async function readEvents(db: Db, runId: string, afterSeq: number, limit: number | undefined): Promise<RecordedEvent[]> {
  const rows = await query<EventRow>(
    db,
    limit === undefined
      ? sql`select seq, type, payload, created_at from gnl.run_events where run_id = ${runId} and seq > ${afterSeq} order by seq`
      : sql`select seq, type, payload, created_at from gnl.run_events where run_id = ${runId} and seq > ${afterSeq} order by seq limit ${limit}`,
  );
  return rows.map((row) => ({ ...decodeJson<object>(row.payload), type: row.type, seq: row.seq, at: new Date(row.created_at) }) as RecordedEvent);
}

function encodePayload(payload: object): string {
  return JSON.stringify(encodeJson(payload));
}

function toSummary(row: RunRow): RunSummary {
  return {
    runId: row.run_id,
    status: row.status as RunSummary['status'],
    input: decodeJson(row.input),
    stepCount: row.step_count,
    lastSeq: row.last_seq,
    pending: decodeJson(row.pending),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function encodeCursor(value: { createdAt: string; runId: string }): string {
  return Buffer.from(JSON.stringify([value.createdAt, value.runId])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; runId: string } {
  try {
    const [createdAt, runId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof createdAt === 'string' && typeof runId === 'string') return { createdAt, runId };
  } catch (error) {
    throw new JournalDataError('listRuns: the cursor is not one this journal gave out.', { cause: error });
  }
  throw new JournalDataError('listRuns: the cursor is not one this journal gave out.');
}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new JournalDataError(`${what}: ${z.prettifyError(result.error)}`, { cause: result.error });
  return result.data;
}
