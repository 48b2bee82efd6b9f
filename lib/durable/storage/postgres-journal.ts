/**
 * The Journal port on Postgres: the one implementation, shared by PostgresStorage (a server, through
 * postgres.js) and PGliteStorage (PGlite is the embedded Postgres). What differs between the two is
 * handed in (JournalBackend: the database, the holds, how writes are announced), never branched on here.
 *
 * The hot path (create, append, load) is one prepared statement each, through the raw driver
 * (event-rows.ts, sql-driver.ts). Decisions, cancels and resume requests read the run under its row
 * lock, plan with the core's pure planDecision / planCancel / planResumeRequest, and append in the same
 * transaction. Listings go through drizzle. Every write is announced to live subscribers
 * (notifications.ts): inside the statement, or after it committed.
 */
import { sql } from 'drizzle-orm';
import {
  type ApprovalDecisionRequest,
  approvalDecisionSchema,
  approveRequestSchema,
  type ApproveRequest,
  approvedInputHash,
  assertInputMatchesSchema,
  type Decision,
  type DecisionRequest,
  JournalDataError,
  type JournalEvent,
  type ListRunsOptions,
  type LiveJournal,
  planDecision,
  planCancel,
  cancelRequestSchema,
  type CancelRequest,
  planResumeRequest,
  resumeRequestSchema,
  planRestartLink,
  restartLinkRequestSchema,
  type RestartLinkRequest,
  type ResumeRequest,
  type RecordedEvent,
  type RunHold,
  type HoldOptions,
  type RunInput,
  type TraceContext,
  type RunPage,
  type RunSummary,
  type SideEffectResolutionRequest,
  sideEffectResolutionSchema,
  type ToolResultRequest,
  toolResultSchema,
  decodeJson,
  resolveRunId,
  assertOutputMatchesSchema,
  type PendingItem,
  type PriorDecision,
  isRunStatus,
  type SubscribeOptions,
  type Subscription,
  type WatchRunsOptions,
  type JournalSecrets,
  type StreamBatch,
  type StreamBatchInput,
  type WatchStreamOptions,
  HoldLostError,
  RunMovedError,
  runStartedAt,
  ForkRefusedError,
  type ForkPlan,
  forkRequestSchema,
  type JournalForkRequest,
  planFork,
  RunState,
  type ImportRunRequest,
  RunTransferError,
  planSendEvent,
  sendEventRequestSchema,
  type SendEventRequest,
} from '../internal';
import { insertImportedRun } from './run-import';
import {
  assertNotErased,
  type EraseOutcome,
  ensureRunKeys,
  erasureOf,
  eraseRunIn,
  type ErasureRecord,
  forgetResource,
  readErasures,
  runsOfSubject,
} from './run-key-rows';
import { readStreamBatches, StreamBatchWriter } from './stream-rows';
import { appendEvents, createRun, type Fence, lastSeqOf, readEvents, resolveStored, secretsOrDefault } from './event-rows';
import { LiveEvents } from './live-events';
import { withBlobPlaceholders } from './payload-blobs';
import type { Announcer, NotificationSource } from './notifications';
import type { SqlDriver, SqlQuery } from './sql-driver';
import { query, type TransactionalDb } from './sql-rows';
import { z } from 'zod';

/** Takes and gives back the right to append to a run. */
export interface HoldProvider {
  /**
   * `fence`, when given, is checked by every append inside its own statement (event-rows.ts): an append
   * whose writer no longer holds the run writes nothing and rejects with HoldLostError.
   */
  acquire(runId: string): Promise<{
    fence?: Fence;
    /** The run's last sequence number as it stands now that it is held (0: no run), when the taking statement read it. */
    lastSeq?: number;
    /** When the run was created (its row's created_at, its run-start's time), when the taking statement read it. */
    createdAt?: Date;
    release(): Promise<void>;
  }>;
  /** The job lock across processes (RunHold.lockJob); absent where one process owns the journal. */
  lockJob?(job: string): Promise<() => Promise<void>>;
}

/** What a storage gives the journal: its database, its holds, and how its writes are announced and heard. */
export interface JournalBackend {
  /** The migrated database: drizzle (listings) and the raw driver (hot path) over the same connections. */
  database(): Promise<{ orm: TransactionalDb; sql: SqlDriver }>;
  holds: HoldProvider;
  announcer: Announcer;
  notifications: NotificationSource;
  /** Seals secrets on write and opens them on read (secret-journal.ts). Default: no key, secrets in clear with a warning. */
  secrets?: JournalSecrets;
}

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
  // A cursor carries a runId: 512 characters of up to 4 bytes, base64url-encoded.
  cursor: z.string().max(4000).optional(),
  names: z.array(z.string().min(1).max(200)).min(1).max(100).optional(),
});
const streamBatchesOptionsSchema = z.object({ afterId: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(10_000).default(1000) });
const eraseRequestSchema = z
  .object({
    runIds: z.array(z.string()).min(1).max(10_000).optional(),
    subject: z.string().min(1).max(200).optional(),
    by: z.string().trim().min(1, 'by: who erases is required'),
    reason: z.string().trim().min(1, 'reason: why (a deletion request, its reference) is required').max(2000),
  })
  .refine((request) => (request.runIds === undefined) !== (request.subject === undefined), 'name the runs (runIds) or a subject, not both');
export type EraseRequest = z.input<typeof eraseRequestSchema>;
const eventsOptionsSchema = z.object({ afterSeq: z.number().int().min(0).default(0), limit: z.number().int().min(1).optional() });

/** Erasure (run-keys.ts, docs/erasure.md): both storages' `erasure`. */
export interface RunEraser {
  erase(request: EraseRequest): Promise<EraseOutcome[]>;
  /**
   * Deletes everything memory holds about a resource (its facts, messages and working memory versions)
   * and rewrites the memory tables, so the text is gone from their files too. Memory is not sealed with
   * a run's key: this needs no journal key. The counts deleted. Who and why are the caller's to audit.
   */
  eraseMemory(resource: string): Promise<{ items: number; versions: number }>;
  erasures(options?: { runId?: string; limit?: number }): Promise<ErasureRecord[]>;
}

export class PostgresJournal implements LiveJournal, RunEraser {
  private readonly live: LiveEvents;
  private readonly secrets: JournalSecrets;

  private readonly streams: StreamBatchWriter;

  constructor(private readonly backend: JournalBackend) {
    this.secrets = secretsOrDefault(backend.secrets);
    const { announcer } = backend;
    this.streams = new StreamBatchWriter(async () => (await this.db()).sql, {
      notifyInStatement: announcer.mode === 'in-statement',
      secrets: this.secrets,
      ...(announcer.mode === 'after-commit' ? { announce: (runId: string, id: number) => announcer.announceStream(runId, id) } : {}),
    });
    this.live = new LiveEvents(backend.notifications, async (runId, afterSeq, limit) =>
      readEvents((await this.db()).sql, runId, afterSeq, limit, this.secrets),
    );
  }

  private db() {
    return this.backend.database();
  }

  /** Journal.runIdOf, which every method here starts with: only an id the rule would change costs a query. */
  async runIdOf(given: string): Promise<string> {
    return resolveRunId(given, async (runId) => {
      const rows = await (await this.db()).sql.query('select 1 from gnl.runs where run_id = $1::text', [runId]);
      return rows.length > 0;
    });
  }

  async hold(given: string, options: HoldOptions = {}): Promise<RunHold> {
    const runId = await this.runIdOf(given);
    const { sql: driver } = await this.db(); // schema ready before the first append
    const held = await this.backend.holds.acquire(runId);
    try {
      await assertNotErased(driver, this.secrets, runId); // its data reads as erased: it never runs again
    } catch (error) {
      await held.release();
      throw error;
    }
    // What the caller read before taking the hold is the run's first load when nothing was written since,
    // and it is this run's: as many events, and its run-start at the time the run's row was created.
    const known =
      options.known && held.lastSeq !== undefined && lastSeqOf(options.known) === held.lastSeq && sameStart(options.known, held.createdAt)
        ? options.known
        : undefined;
    const hold = new SqlRunHold(runId, driver, this.backend.announcer, held.fence, held.release, this.secrets, this.streams, known);
    const holds = this.backend.holds;
    if (holds.lockJob) hold.lockJob = (job: string) => (holds.lockJob as NonNullable<HoldProvider['lockJob']>)(job);
    return hold;
  }

  async createRun(given: string, input: RunInput, options: { trace?: TraceContext; by?: string } = {}): Promise<RecordedEvent | undefined> {
    const runId = await this.runIdOf(given);
    const { sql: driver } = await this.db();
    // Without a hold: the statement inserts the run only if no row has its id (on conflict do nothing),
    // so of two callers at once one creates it; a holder takes it later as any run (its token set then).
    try {
      return await announcedCreate(driver, this.backend.announcer, this.secrets, runId, input, options, undefined);
    } catch (error) {
      if (RunMovedError.isInstance(error)) return undefined; // it exists: another caller created it
      throw error;
    }
  }

  async approve(request: ApproveRequest): Promise<Decision> {
    const parsed = parse(approveRequestSchema, request, 'approve');
    if (parsed.input === undefined) return this.decide({ kind: 'approve', ...parsed });
    // What the tool's schema parsed is recorded, hashed and executed, never the raw value given.
    const input = await assertInputMatchesSchema({ schema: parsed.inputSchema, toolCallId: parsed.toolCallId, input: parsed.input });
    return this.decide({ kind: 'approve', ...parsed, input, inputHash: approvedInputHash(input) });
  }

  async reject(request: ApprovalDecisionRequest): Promise<Decision> {
    return this.decide({ kind: 'reject', ...parse(approvalDecisionSchema, request, 'reject') });
  }

  async resolveSideEffect(request: SideEffectResolutionRequest): Promise<Decision> {
    const parsed = parse(sideEffectResolutionSchema, request, 'resolveSideEffect');
    if (parsed.outcome !== 'done') return this.decide({ kind: 'resolve', ...parsed });
    const output = await assertOutputMatchesSchema({ schema: parsed.outputSchema, toolCallId: parsed.toolCallId, output: parsed.output });
    return this.decide({ kind: 'resolve', ...parsed, output });
  }

  async provideToolResult(request: ToolResultRequest): Promise<Decision> {
    const parsed = parse(toolResultSchema, request, 'provideToolResult');
    const output = await assertOutputMatchesSchema({
      schema: parsed.outputSchema,
      toolCallId: parsed.toolCallId,
      output: parsed.output,
      what: 'provideToolResult',
    });
    return this.decide({ kind: 'provide', ...parsed, output: output as typeof parsed.output });
  }

  /**
   * Under the run's row lock, the same lock every append takes: a decision is ordered before or after
   * an invocation's first append (which carries the sequence number it loaded, begin-invocation.ts), so
   * the invocation either sees it or it is refused as 'run-executing'.
   */
  private async decide(given: DecisionRequest): Promise<Decision> {
    const request = { ...given, runId: await this.runIdOf(given.runId) };
    const { sql: driver } = await this.db();
    const [decisionType, source] = DECISION_EVENT[request.kind];
    const { announcer } = this.backend;
    const { decision, recorded } = await driver.transaction(async (tx) => {
      const [run] = await tx.query<{ pending: unknown; status: string }>('select pending, status from gnl.runs where run_id = $1::text for update', [
        request.runId,
      ]);
      // The database's clock, the one every event's time is written with (created_at defaults to the
      // transaction's now()): the decision's time in the pending list and in the answer is its event's.
      const [clock] = await tx.query<{ now: Date | string }>('select now() as now', []);
      const [prior] = await tx.query<{ by: string; created_at: Date | string }>(
        `select payload->>'by' as by, created_at from gnl.run_events
         where run_id = $1::text and type = $2::text and payload->>'toolCallId' = $3::text
           and ($4::text is null or payload->>'source' = $4::text)
         order by seq desc limit 1`,
        [request.runId, decisionType, request.toolCallId, source],
      );
      const pending = run ? decodeJson<PendingItem[]>(run.pending) : undefined;
      // Who started the run, read only for an approval of a call under a four-eyes rule (decisions.ts): its run-start's `by`, kept in clear.
      const fourEyes =
        request.kind === 'approve' && pending?.some((p) => p.kind === 'approval' && p.toolCallId === request.toolCallId && p.rule?.fourEyes === true);
      const [starter] = fourEyes
        ? await tx.query<{ by: string | null }>(`select payload->>'by' as by from gnl.run_events where run_id = $1::text and seq = 1`, [request.runId])
        : [];
      const plan = planDecision({
        request,
        ...(starter?.by ? { startedBy: starter.by } : {}),
        pending,
        prior: prior ? { by: prior.by, at: new Date(prior.created_at) } : undefined,
        canceled: run?.status === 'canceled' ? await lastCancel(tx, request.runId) : undefined,
        executingSince: run?.status === 'running' ? await invocationStart(tx, request.runId) : undefined,
        now: new Date((clock as { now: Date | string }).now),
      });
      // The pending list goes back as it was read: its secrets stay sealed (deciding needs no journal key),
      // but for arguments this decision proposed, in clear until sealed here like the event that carries them.
      let nextPending = plan.pending;
      if (plan.proposed) {
        await ensureRunKeys(tx, this.secrets, [request.runId]);
        const sealed = this.secrets.sealPendingProposal(plan.proposed, request.runId);
        nextPending = plan.pending.map((item) => (item === plan.proposed ? sealed : item));
      }
      const events = await appendEvents(tx, request.runId, [plan.event], {
        pending: nextPending,
        pendingSealed: true,
        notifyInStatement: announcer.mode === 'in-statement',
        secrets: this.secrets,
      });
      return { decision: plan.decision, recorded: events };
    });
    announce(announcer, request.runId, recorded);
    return decision;
  }

  async cancel(request: CancelRequest): Promise<{ canceledAt: Date }> {
    const parsed = parse(cancelRequestSchema, request, 'cancel');
    const canceledAt = await this.appendRunRequest(parsed.runId, (status, priorCancel) => planCancel({ request: parsed, status, priorCancel }));
    return { canceledAt };
  }

  async requestResume(request: ResumeRequest): Promise<{ requestedAt: Date }> {
    const parsed = parse(resumeRequestSchema, request, 'requestResume');
    const requestedAt = await this.appendRunRequest(parsed.runId, (status, canceled) => planResumeRequest({ request: parsed, status, canceled }));
    return { requestedAt };
  }

  /**
   * A request about the whole run (cancel, resume), from anywhere: the run's row lock, the pure plan
   * (given the status and, for a canceled run, who canceled it), one append in the same transaction,
   * announced. Returns when it was recorded.
   */
  private async appendRunRequest(given: string, plan: (status: string | undefined, canceled: PriorDecision | undefined) => JournalEvent): Promise<Date> {
    const runId = await this.runIdOf(given);
    const { sql: driver } = await this.db();
    const { announcer } = this.backend;
    const recorded = await driver.transaction(async (tx) => {
      const [run] = await tx.query<{ status: string }>('select status from gnl.runs where run_id = $1::text for update', [runId]);
      const event = plan(run?.status, run?.status === 'canceled' ? await lastCancel(tx, runId) : undefined);
      return appendEvents(tx, runId, [event], { notifyInStatement: announcer.mode === 'in-statement', secrets: this.secrets });
    });
    announce(announcer, runId, recorded);
    return (recorded[0] as RecordedEvent).at;
  }

  /** Under the run's row lock: the restarts it names already, the pure plan, at most one append. */
  async recordRestart(request: RestartLinkRequest): Promise<{ recorded: boolean }> {
    const parsed = parse(restartLinkRequestSchema, request, 'recordRestart');
    const runId = await this.runIdOf(parsed.runId);
    const restartedAs = await this.runIdOf(parsed.restartedAs);
    const { sql: driver } = await this.db();
    const { announcer } = this.backend;
    const recorded = await driver.transaction(async (tx) => {
      const [run] = await tx.query<{ status: string }>('select status from gnl.runs where run_id = $1::text for update', [runId]);
      const named = await tx.query<{ restarted_as: string }>(
        `select payload->>'restartedAs' as restarted_as from gnl.run_events where run_id = $1::text and type = 'run-restarted'`,
        [runId],
      );
      const event = planRestartLink({ request: { ...parsed, runId, restartedAs }, status: run?.status, restartedAs: named.map((r) => r.restarted_as) });
      if (!event) return [];
      return appendEvents(tx, runId, [event], { notifyInStatement: announcer.mode === 'in-statement', secrets: this.secrets });
    });
    announce(announcer, runId, recorded);
    return { recorded: recorded.length > 0 };
  }

  async sendEvent(request: SendEventRequest): Promise<{ recorded: boolean; eventId: string }> {
    const parsed = parse(sendEventRequestSchema, request, 'sendEvent');
    const runId = await this.runIdOf(parsed.runId);
    const { sql: driver } = await this.db();
    const { announcer } = this.backend;
    const recorded = await driver.transaction(async (tx) => {
      const [run] = await tx.query<{ status: string; workflow: boolean }>(
        `select status, (input->>'provider') = 'gnl.workflow' as workflow from gnl.runs where run_id = $1::text for update`,
        [runId],
      );
      const sent = await tx.query<{ event_id: string; name: string }>(
        `select payload->>'eventId' as event_id, payload->>'name' as name from gnl.run_events where run_id = $1::text and type = 'workflow-event'`,
        [runId],
      );
      const event = planSendEvent({
        request: { ...parsed, runId },
        status: run?.status,
        isWorkflow: run?.workflow === true,
        sent: sent.map((r) => ({ eventId: r.event_id, name: r.name })),
      });
      if (!event) return [];
      return appendEvents(tx, runId, [event], { notifyInStatement: announcer.mode === 'in-statement', secrets: this.secrets });
    });
    announce(announcer, runId, recorded);
    return { recorded: recorded.length > 0, eventId: parsed.eventId };
  }

  /**
   * Under the parent's row lock (ordered with its appends and decisions): read its events, plan the fork
   * (the core's pure planFork), create the child with the copy and append the parent's run-forked, all in
   * one transaction: a crash leaves either the whole fork or nothing. A child that exists already is the
   * same request again when its forkOf names this parent, step and change; any other run under that id refuses.
   */
  async fork(request: JournalForkRequest): Promise<{ created: boolean; plan: ForkPlan }> {
    const parsed = parse(forkRequestSchema, request, 'fork');
    const { atStep, by, reason } = parsed;
    const runId = await this.runIdOf(parsed.runId);
    const childRunId = await this.runIdOf(parsed.childRunId);
    const { sql: driver } = await this.db();
    const { announcer } = this.backend;
    const write = { notifyInStatement: announcer.mode === 'in-statement', secrets: this.secrets };
    const result = await driver.transaction(async (tx) => {
      const [parent] = await tx.query<{ status: string }>('select status from gnl.runs where run_id = $1::text for update', [runId]);
      if (!parent) throw new ForkRefusedError({ runId, atStep, reason: 'unknown-run', detail: 'no such run' });
      const plan = planFork(
        { runId, atStep, by, reason, ...(parsed.edit ? { edit: parsed.edit } : {}) },
        await readEvents(tx, runId, 0, undefined, this.secrets),
      );
      const [existing] = await readEvents(tx, childRunId, 0, 1, this.secrets);
      if (existing) {
        const made = new RunState([existing]).input;
        const forkOf = made?.forkOf;
        const asked = plan.input.forkOf;
        // The same request again: the same parent, step and change (an instruction, which result was edited, a workflow's version).
        const same =
          forkOf?.runId === runId &&
          forkOf.atStep === atStep &&
          forkOf.instruction === asked?.instruction &&
          forkOf.editedToolCallId === asked?.editedToolCallId &&
          made?.workflow?.version === plan.input.workflow?.version;
        if (same) return { created: false, plan, child: [], parent: [] };
        throw new ForkRefusedError({ runId, atStep, reason: 'run-id-taken', detail: `run "${childRunId}" exists and is not this fork` });
      }
      const start = await createRun(tx, childRunId, plan.input, write);
      const copied = await appendEvents(tx, childRunId, plan.history, write);
      const linked = await appendEvents(tx, runId, [{ type: 'run-forked', childRunId, atStep, by, reason }], write);
      return { created: true, plan, child: [start, ...copied], parent: linked };
    });
    announce(announcer, childRunId, result.child);
    announce(announcer, runId, result.parent);
    return { created: result.created, plan: result.plan };
  }

  /**
   * Erases runs (run-keys.ts, docs/erasure.md): the runs named, or every run recorded for `subject`. One
   * transaction per run (a subject with many runs is never one huge transaction): its key destroyed, the
   * erasure recorded in gnl.erasures, its stream log dropped; then the key table is rewritten (VACUUM
   * FULL), so the destroyed keys are gone from its files too. A run that may still run, or that has no key
   * of its own, is refused and reported; nothing of it changes.
   */
  async erase(request: EraseRequest): Promise<EraseOutcome[]> {
    const parsed = parse(eraseRequestSchema, request, 'erase');
    const ring = this.secrets.ring;
    if (!ring) {
      throw new JournalDataError(
        'Erasure needs run keys, and run keys need a journal key: set GNL_JOURNAL_KEY (and GNL_RUN_KEYS=on for new runs). docs/erasure.md',
      );
    }
    const named = parsed.runIds ? await Promise.all(parsed.runIds.map((runId) => this.runIdOf(runId))) : undefined;
    const { sql: driver } = await this.db();
    const runIds = named ?? (await runsOfSubject(driver, parsed.subject as string));
    const outcomes: EraseOutcome[] = [];
    for (const runId of runIds) {
      outcomes.push(await driver.transaction((tx) => eraseRunIn(tx, runId, { by: parsed.by, reason: parsed.reason })));
      ring.forget(runId);
    }
    // A subject's memory (docs/memory.md: the resource named like the subject) is not sealed: erasing is deleting it.
    const forgot = parsed.subject !== undefined ? await forgetResource(driver, parsed.subject) : { items: 0, versions: 0 };
    const erased = outcomes.some((outcome) => outcome.outcome === 'erased');
    if (erased || forgot.items + forgot.versions > 0) await rewriteErased(driver, { keys: erased, memory: forgot.items + forgot.versions > 0 });
    return outcomes;
  }

  async eraseMemory(resource: string): Promise<{ items: number; versions: number }> {
    const given = z.string().min(1).max(200).safeParse(resource);
    if (!given.success) throw new JournalDataError('eraseMemory: the resource is 1 to 200 characters', { cause: given.error });
    const { sql: driver } = await this.db();
    const forgot = await forgetResource(driver, given.data);
    if (forgot.items + forgot.versions > 0) await rewriteErased(driver, { keys: false, memory: true });
    return forgot;
  }

  /** The erasure log (gnl.erasures), newest first. */
  async erasures(options: { runId?: string; limit?: number } = {}): Promise<ErasureRecord[]> {
    const runId = options.runId === undefined ? undefined : await this.runIdOf(options.runId);
    return readErasures((await this.db()).sql, { ...options, ...(runId !== undefined ? { runId } : {}) });
  }

  /** One transaction: the run and its events as recorded (run-import.ts), then `then` appended like any event. */
  async importRun(request: ImportRunRequest): Promise<RecordedEvent[]> {
    const { events, then = [] } = request;
    const runId = await this.runIdOf(request.runId);
    const { sql: driver } = await this.db();
    const { announcer } = this.backend;
    const notifyInStatement = announcer.mode === 'in-statement';
    const recorded = await driver.transaction(async (tx) => {
      const created = await insertImportedRun(tx, { runId, events, secrets: this.secrets, notify: notifyInStatement });
      if (!created)
        throw new RunTransferError({
          reason: 'run-exists',
          runId,
          detail: `Run "${runId}" exists in this journal; import it under another id (--as). Nothing was imported.`,
        });
      const appended = await appendEvents(tx, runId, then, { notifyInStatement, secrets: this.secrets });
      return [...events, ...appended];
    });
    announce(announcer, runId, recorded);
    return recorded;
  }

  async getRun(given: string): Promise<RunSummary | undefined> {
    const runId = await this.runIdOf(given);
    const { orm, sql: driver } = await this.db();
    const [row] = await query<RunRow>(orm, sql`select * from gnl.runs where run_id = ${runId}`);
    // One run: its input whole (the executor starts the agent from it), big values fetched by hash.
    if (!row) return undefined;
    await ensureRunKeys(driver, this.secrets, [runId]);
    return toSummary({ ...row, input: await resolveStored(driver, row.input, `run "${runId}" input`) }, this.secrets);
  }

  async listRuns(options: ListRunsOptions = {}): Promise<RunPage> {
    const { status, limit, cursor, names } = parse(listOptionsSchema, options, 'listRuns');
    const after = cursor ? decodeCursor(cursor) : undefined;
    // The name a run is listed by (lib/server/run-resource.ts runName): its agent, else its workflow's.
    const named = names ? JSON.stringify(names) : null;
    const rows = await query<RunRow>(
      (await this.db()).orm,
      sql`select *, created_at::text as created_at_text from gnl.runs
          where (${status ?? null}::text is null or status = ${status ?? null})
            and (${named}::jsonb is null or coalesce(input->>'agent', input->'workflow'->>'name') in (select jsonb_array_elements_text(${named}::jsonb)))
            and (${after?.createdAt ?? null}::timestamptz is null or (created_at, run_id) < (${after?.createdAt ?? null}::timestamptz, ${after?.runId ?? null}))
          order by created_at desc, run_id desc
          limit ${limit + 1}`,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    await ensureRunKeys(
      (await this.db()).sql,
      this.secrets,
      page.map((row) => row.run_id),
    );
    return {
      // A page of runs: a big value in an input is shown as a placeholder, not fetched (getRun has it whole).
      runs: page.map((row) => toSummary({ ...row, input: withBlobPlaceholders(row.input) }, this.secrets)),
      ...(rows.length > limit && last ? { nextCursor: encodeCursor({ createdAt: last.created_at_text as string, runId: last.run_id }) } : {}),
    };
  }

  async events(given: string, options: { afterSeq?: number; limit?: number } = {}): Promise<RecordedEvent[]> {
    const runId = await this.runIdOf(given);
    const { afterSeq, limit } = parse(eventsOptionsSchema, options, 'events');
    return readEvents((await this.db()).sql, runId, afterSeq, limit, this.secrets);
  }

  async answerEvents(given: string): Promise<RecordedEvent[]> {
    const runId = await this.runIdOf(given);
    return readEvents((await this.db()).sql, runId, 0, undefined, this.secrets, 'answer');
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (options.afterSeq !== undefined) parse(eventsOptionsSchema, { afterSeq: options.afterSeq }, 'subscribe');
    return this.live.subscribe({ ...options, runId: await this.runIdOf(options.runId) });
  }

  watchRuns(options: WatchRunsOptions): Promise<Subscription> {
    return this.live.watchRuns(options);
  }

  async streamBatches(given: string, options: { afterId?: number; limit?: number } = {}): Promise<StreamBatch[]> {
    const runId = await this.runIdOf(given);
    const { afterId, limit } = parse(streamBatchesOptionsSchema, options, 'streamBatches');
    return readStreamBatches((await this.db()).sql, runId, afterId, limit, this.secrets);
  }

  async watchStream(options: WatchStreamOptions): Promise<Subscription> {
    return this.live.watchStream({ ...options, runId: await this.runIdOf(options.runId) });
  }

  /** Tells this journal's subscribers that something went wrong with live notifications. */
  reportLiveError(error: unknown): void {
    this.live.reportError(error);
  }

  /** Ends every subscription and the listener (the storage's close). */
  stopLive(): Promise<void> {
    return this.live.stop();
  }
}

class SqlRunHold implements RunHold {
  private released = false;
  canceled = false;
  lockJob: RunHold['lockJob'];
  /** Fenced on a session advisory lock (Postgres): the server can end that session. */
  get losable(): boolean {
    return this.fence !== undefined;
  }
  constructor(
    readonly runId: string,
    private readonly db: SqlDriver,
    private readonly announcer: Announcer,
    private readonly fence: Fence | undefined,
    private readonly releaseHold: () => Promise<void>,
    private readonly secrets: JournalSecrets,
    private readonly streams: StreamBatchWriter,
    /** The whole run as the caller read it, still current when the hold was taken: the first load, without a statement. */
    private known: RecordedEvent[] | undefined,
  ) {}

  load(): Promise<RecordedEvent[]> {
    const known = this.known;
    this.known = undefined;
    if (known) return Promise.resolve(known);
    return readEvents(this.db, this.runId, 0, undefined, this.secrets);
  }

  create(input: RunInput, options: { trace?: TraceContext; by?: string } = {}): Promise<RecordedEvent> {
    return announcedCreate(this.db, this.announcer, this.secrets, this.runId, input, options, this.fence);
  }

  append(events: readonly JournalEvent[]): Promise<RecordedEvent[]> {
    return this.write(events, undefined);
  }

  appendAfter(lastSeq: number, events: readonly JournalEvent[]): Promise<RecordedEvent[]> {
    return this.write(events, lastSeq);
  }

  private async write(events: readonly JournalEvent[], expectedLastSeq: number | undefined): Promise<RecordedEvent[]> {
    if (this.released) throw new JournalDataError(`The hold on run "${this.runId}" was released; it cannot append.`);
    const announcing = announcedIfWatched(this.announcer, this.runId);
    const recorded = await appendEvents(this.db, this.runId, events, {
      ...(expectedLastSeq === undefined ? {} : { expectedLastSeq }),
      fence: this.fence,
      notifyInStatement: this.announcer.mode === 'in-statement',
      onWatched: announcing.onWatched,
      secrets: this.secrets,
      onStatus: (status) => {
        if (status === 'canceled') this.canceled = true;
      },
    });
    announcing.announce(recorded);
    return recorded;
  }

  async appendStream(batch: StreamBatchInput): Promise<void> {
    if (this.released) throw new JournalDataError(`The hold on run "${this.runId}" was released; it cannot stream.`);
    const id = await this.streams.write(this.runId, this.fence?.holder, batch);
    if (id === undefined) throw new HoldLostError({ runId: this.runId });
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.releaseHold();
  }
}

/** The event that records each kind of decision (and, for a provided result, the end's source that tells it from an executed one). */
const DECISION_EVENT: Record<DecisionRequest['kind'], [type: JournalEvent['type'], source: string | null]> = {
  approve: ['tool-approval-response', null],
  reject: ['tool-approval-response', null],
  resolve: ['side-effect-resolution', null],
  provide: ['tool-call-end', 'provided'],
};

/** When the invocation executing now began: its run-resume, or the run-start of a first one. */
async function invocationStart(tx: SqlQuery, runId: string): Promise<Date | undefined> {
  const [row] = await tx.query<{ created_at: Date | string }>(
    `select created_at from gnl.run_events where run_id = $1::text and type in ('run-start', 'run-resume') order by seq desc limit 1`,
    [runId],
  );
  return row ? new Date(row.created_at) : undefined;
}

/** Who canceled the run last, and when (a decision, a second cancel or a resume request on a canceled run names them). */
async function lastCancel(tx: SqlQuery, runId: string): Promise<{ by: string; at: Date } | undefined> {
  const [row] = await tx.query<{ by: string; created_at: Date | string }>(
    `select payload->>'by' as by, created_at from gnl.run_events where run_id = $1::text and type = 'run-cancel' order by seq desc limit 1`,
    [runId],
  );
  return row ? { by: row.by, at: new Date(row.created_at) } : undefined;
}

/**
 * A hold's write: told by its own statement whether anyone may listen for the run (watch-locks.ts), then
 * announced after commit only if so: no NOTIFY sent to nobody.
 */
function announcedIfWatched(announcer: Announcer, runId: string) {
  let watched = true;
  return {
    onWatched: (answer: boolean) => {
      watched = answer;
    },
    announce: (recorded: readonly RecordedEvent[]) => {
      if (watched) announce(announcer, runId, recorded);
    },
  };
}

/** A run's run-start written (under a hold's fence, or without one: createRun), announced after commit if anyone watches. */
async function announcedCreate(
  db: SqlQuery,
  announcer: Announcer,
  secrets: JournalSecrets,
  runId: string,
  input: RunInput,
  options: { trace?: TraceContext; by?: string },
  fence: Fence | undefined,
): Promise<RecordedEvent> {
  const announcing = announcedIfWatched(announcer, runId);
  const recorded = await createRun(db, runId, input, {
    ...options,
    fence,
    notifyInStatement: announcer.mode === 'in-statement',
    onWatched: announcing.onWatched,
    secrets,
  });
  announcing.announce([recorded]);
  return recorded;
}

/** After commit, not awaited: the append's caller never waits for its notification. */
function announce(announcer: Announcer, runId: string, recorded: readonly RecordedEvent[]): void {
  if (announcer.mode === 'after-commit' && recorded.length > 0) announcer.announce(runId, lastSeqOf(recorded));
}

/** Whether `known` starts with the run-start of the run created at `createdAt` (none: no run, or not read: only the count is compared). */
function sameStart(known: readonly RecordedEvent[], createdAt: Date | undefined): boolean {
  if (createdAt === undefined || known.length === 0) return true;
  return runStartedAt(known) === createdAt.getTime();
}

function toSummary(row: RunRow, secrets: JournalSecrets): RunSummary {
  const where = `run "${row.run_id}"`;
  const erasure = erasureOf(secrets, row.run_id);
  return {
    runId: row.run_id,
    status: row.status as RunSummary['status'],
    input: secrets.openRunInput(decodeJson(row.input), row.run_id, where),
    stepCount: row.step_count,
    lastSeq: row.last_seq,
    pending: secrets.openPending(decodeJson(row.pending), row.run_id, where),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    ...(erasure ? { erased: erasure } : {}),
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

/**
 * Outside any transaction (VACUUM cannot run in one): the erased rows' old versions go with the rewrite
 * of their tables, once no transaction from before the erasure is open (VACUUM FULL keeps a row version
 * any open snapshot may still see: an autoanalyze, another session's long read).
 */
async function rewriteErased(driver: SqlDriver, tables: { keys: boolean; memory: boolean }): Promise<void> {
  await untilSnapshotsAfterNow(driver, ERASE_SNAPSHOT_WAIT_MS);
  if (tables.keys) await driver.query('vacuum full gnl.run_keys', []);
  if (tables.memory) {
    await driver.query('vacuum full gnl.memory_items', []);
    await driver.query('vacuum full gnl.working_memory', []);
  }
}

/** How long an erasure waits for older snapshots to end before it rewrites the key table anyway. */
const ERASE_SNAPSHOT_WAIT_MS = 30_000;

/**
 * Waits until no other session of the server holds a snapshot (backend_xmin) or a transaction id
 * (backend_xid) older than this moment, and no prepared transaction is that old, for at most `maxMs`;
 * after that the rewrite goes ahead and a later one (the next erasure, VACUUM FULL by hand) removes what
 * an old transaction kept. Every database counts, and a transaction with an id but no snapshot counts:
 * a transaction running anywhere on the server is in the snapshot of VACUUM FULL itself, which then
 * keeps the deleted row versions as "recently dead" (measured: an idle transaction in another database
 * kept erased memory in the rewritten files, erasure.test.ts). On PGlite there is no other session.
 */
async function untilSnapshotsAfterNow(driver: SqlDriver, maxMs: number): Promise<void> {
  const [mark] = await driver.query<{ xid: string }>('select (txid_current() % 4294967296)::text as xid', []);
  const deadline = Date.now() + maxMs;
  for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
    const [row] = await driver.query<{ older: number }>(
      `select (select count(*)::int from pg_stat_activity
                where pid <> pg_backend_pid()
                  and ((backend_xmin is not null and age(backend_xmin) > age($1::text::xid))
                    or (backend_xid is not null and age(backend_xid) > age($1::text::xid))))
            + (select count(*)::int from pg_prepared_xacts where age(transaction) > age($1::text::xid)) as older`,
      [mark?.xid ?? '0'],
    );
    if (!row || row.older === 0 || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
