/**
 * The journal's tables, in their own Postgres schema `gnl`.
 *
 * `run_events` is the journal: append-only, keyed by (run_id, seq), never updated or deleted.
 * `runs` is a summary for listing, derived from the events and written in the same statement
 * as every append; it can always be rebuilt from `run_events`.
 * `run_queue` is the executor layer's bookkeeping (lib/executor): which runs are runnable and which
 * executor holds a time lease on each. It is not the journal: rows are updated in place.
 * `operators` are the people who sign in to the Studio and decide (lib/accounts); every change to an
 * account is a row of the append-only `operator_audit`.
 * `payloads` holds the big values events name by SHA-256 (docs/large-payloads.md): append-only too,
 * written in the same statement as the first event that names each.
 * `operator_sessions` are the Studio's sign-ins (lib/accounts/sessions.ts), each revocable;
 * `sign_in_failures` the recent failed sign-ins the rate limit counts (lib/studio/auth/sign-in-rate-limit.ts).
 * `stream_chunks` holds what an invocation streamed (its UI message stream, in batches): not the journal,
 * a cache beside it that a reconnecting client replays from (lib/durable/stream/stream-log.ts); rows of an
 * invocation superseded by a finished one are deleted.
 * `schedules` is the executors' bookkeeping of cron schedules (lib/executor schedule-ticker.ts): the
 * latest slot decided per schedule; a slot's run is named by the slot, so it is started once.
 * `notifications` is the outbox of webhooks about runs that wait for people or failed (docs/notifications.md).
 * `retention_log` records every run the retention job dropped (lib/executor/retention/retention.ts): append-only;
 * `maintenance_passes` is when a periodic job (retention) last started, so one pass runs per interval.
 * `memory_items` and `working_memory` are what agents remember across runs (lib/durable/memory, docs/memory.md), by
 * resource (a customer) and thread; each write made under its idempotency key, once. `memory_retention_log`
 * records what the retention job deleted of them (GNL_MEMORY_RETENTION_DAYS): append-only.
 * `demo_crash_points` is the demo's, not the runtime's: the crash point a demo run was started with
 * (lib/demo/crash-point-store.ts), read by whichever process invokes the run.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, customType, index, integer, json, jsonb, pgSchema, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** Raw bytes (drizzle has no bytea column of its own). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' });

export const gnl = pgSchema('gnl');

export const runs = gnl.table(
  'runs',
  {
    runId: text('run_id').primaryKey(),
    status: text('status').notNull(),
    /** Highest sequence number appended; the next event gets last_seq + 1. */
    lastSeq: integer('last_seq').notNull(),
    stepCount: integer('step_count').notNull().default(0),
    /** The start input (prompt or messages, system, model id, tool names). */
    input: jsonb('input').notNull(),
    /** What the run waits for when it is not moving: approvals or side effects of unknown outcome. */
    pending: jsonb('pending').notNull().default([]),
    /**
     * The token of the writer that holds the run (Postgres): set when a process takes the run, checked
     * inside every append. A writer whose run was taken over (even by a session that reuses its pid)
     * matches no row and writes nothing. Null for runs held by the embedded journal's in-process holds.
     */
    holder: text('holder'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('runs_created_idx').on(t.createdAt, t.runId),
    index('runs_status_created_idx').on(t.status, t.createdAt, t.runId),
    /** The Studio's agent filter, newest first (migration 0006). */
    index('runs_agent_created_idx').on(sql`(input->>'agent')`, t.createdAt, t.runId),
    /** The Studio's run-id prefix search (`run_id like 'abc%'`, whatever the database's collation). */
    index('runs_run_id_prefix_idx').on(t.runId.op('text_pattern_ops')),
    /** A conversation's turns, oldest first (migration 0011): each turn is a run whose start records its conversationId. */
    index('runs_conversation_idx').on(sql`(input->>'conversationId')`, t.createdAt, t.runId).where(sql`input ? 'conversationId'`),
  ],
);

/** The event types that name a tool, and those that carry an idempotency key (the Studio's search, lib/studio/reads/run-search.ts). */
const TOOL_EVENT_TYPES = sql.raw(`type in ('tool-call-start', 'tool-call-end', 'tool-call-error', 'tool-approval-request')`);
const KEY_EVENT_TYPES = sql.raw(`type in ('tool-call-start', 'tool-call-end', 'tool-call-error')`);

export const runEvents = gnl.table(
  'run_events',
  {
    runId: text('run_id').notNull(),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The `payloads` hashes this event's payload names (null for nearly every event): the load fetches them in the same query. */
    blobs: text('blobs').array(),
    /**
     * A run-complete's `answer` (the SDK's whole result, completed-result.ts), cut out of `payload` and kept
     * as json: read whole, never queried inside, so it leaves the server as stored, without jsonb's output
     * (half of reading it: bench/answer-floor.ts). Null for every other event, and for a run-complete whose
     * answer stays in `payload` (one written before this column, imported, or cut into blobs).
     */
    answer: json('answer'),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.seq] }),
    /** The few events that name blobs, so a load of a run without any finds none at the cost of one empty index probe. */
    index('run_events_blobs_idx').on(t.runId, t.seq).where(sql`blobs is not null`),
    /** Which runs called a tool: partial, so events that name none cost nothing; maintained by the insert itself. */
    index('run_events_tool_name_idx').on(sql`(payload->>'toolName')`, t.runId).where(TOOL_EVENT_TYPES),
    /** Which run holds an idempotency key ("did we refund o_17?": the outside service shows the key). */
    index('run_events_idempotency_key_idx').on(sql`(payload->>'idempotencyKey')`, t.runId).where(KEY_EVENT_TYPES),
  ],
);

/**
 * Values too big to keep in an event row (over 64 KiB of encoded JSON), content-addressed: `hash` is the
 * SHA-256 (hex) of `body`'s JSON text as GNL wrote it, so the same value stored by two runs is one row.
 * Append-only (a trigger, migration 0007, refuses UPDATE, DELETE and TRUNCATE): events name these rows
 * and events are never rewritten. Inserted `on conflict do nothing` in the statement that writes the
 * event naming it (lib/durable/storage/event-rows.ts).
 */
export const payloads = gnl.table('payloads', {
  hash: text('hash').primaryKey(),
  /** UTF-8 bytes of the body's JSON text: what counts against MAX_EVENT_BYTES. */
  bytes: bigint('bytes', { mode: 'number' }).notNull(),
  /** The value as json-codec encoded it (secrets sealed before it was cut out of its event). */
  body: jsonb('body').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * The executor layer's queue (lib/executor): one row per run started or resumed through it. A run is
 * claimed when it is runnable and its lease is free or expired (judged by the database's clock); the
 * claimer holds a time lease renewed by heartbeats, on top of the journal's own hold.
 */
export const runQueue = gnl.table(
  'run_queue',
  {
    runId: text('run_id')
      .primaryKey()
      .references(() => runs.runId),
    /** The registered agent that executes the run (agents/index.ts). */
    agent: text('agent').notNull(),
    /** An executor should invoke the run (started, resumed, or given up by an executor that stopped). */
    runnable: boolean('runnable').notNull().default(true),
    /** Bumped by every start and resume: an invocation clears `runnable` only if no resume came meanwhile. */
    wakeups: integer('wakeups').notNull().default(1),
    queuedAt: timestamp('queued_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The executor holding the lease (`<host>:<pid>:<random>`), or null. */
    leaseOwner: text('lease_owner'),
    /** The executor that claimed the run last (kept when its lease is released or lapses): the Studio's evidence. */
    lastLeaseOwner: text('last_lease_owner'),
    /** Past this instant (database clock) the lease is free to take over. */
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true, mode: 'date' }),
    heartbeatAt: timestamp('heartbeat_at', { withTimezone: true, mode: 'date' }),
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }),
    /** How many times an executor claimed the run. */
    claims: integer('claims').notNull().default(0),
    /** How the last invocation ended: completed, waiting-approval, blocked, failed, diverged, canceled, … */
    outcome: text('outcome'),
    /** The last invocation's error, as `Name: message`. */
    error: text('error'),
    /** Abandoned by an operator (a run whose agent changed): who, why, when. Never runnable again. */
    abandonedBy: text('abandoned_by'),
    abandonReason: text('abandon_reason'),
    abandonedAt: timestamp('abandoned_at', { withTimezone: true, mode: 'date' }),
    /** restartRun: the run this one restarts, and the run that restarted this one. */
    restartOf: text('restart_of'),
    restartedAs: text('restarted_as'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('run_queue_runnable_idx').on(t.queuedAt).where(sql`runnable`)],
);

/**
 * Schedules (lib/executor schedule-ticker.ts): each declared schedule as the executors last saw it, and
 * the latest slot decided for it. Bookkeeping, not the journal: rows are updated in place. A slot's run
 * is `sched:<id>:<slot>` (lib/agents scheduleRunId), so a tick repeated after a crash starts nothing twice.
 */
export const schedules = gnl.table('schedules', {
  /** The schedule's id (defineSchedule). */
  scheduleId: text('schedule_id').primaryKey(),
  /** The definition as the executor that ticked last declared it. */
  agent: text('agent').notNull(),
  cron: text('cron').notNull(),
  timeZone: text('time_zone').notNull(),
  /** 'skip' or 'latest'. */
  missed: text('missed').notNull(),
  graceMs: integer('grace_ms').notNull(),
  /** When an executor first ticked the schedule (database clock): no slot before it is ever due. */
  since: timestamp('since', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  /** The latest slot decided (started, or missed and skipped); only ever moves forward. */
  lastSlot: timestamp('last_slot', { withTimezone: true, mode: 'date' }),
  /** The run of the latest slot started, and when it was started. */
  lastRunId: text('last_run_id'),
  lastStartedAt: timestamp('last_started_at', { withTimezone: true, mode: 'date' }),
  /** The latest missed slots that were skipped (first and last of them). */
  lastMissedFrom: timestamp('last_missed_from', { withTimezone: true, mode: 'date' }),
  lastMissedTo: timestamp('last_missed_to', { withTimezone: true, mode: 'date' }),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  /** 'allow' or 'skip' (a slot is skipped while the previous slot's run is open), as last declared. */
  overlap: text('overlap').notNull().default('allow'),
  /** Set while an operator has the schedule paused (no executor starts its slots); who and why. Every change is in schedule_audit. */
  pausedAt: timestamp('paused_at', { withTimezone: true, mode: 'date' }),
  pausedBy: text('paused_by'),
  pauseReason: text('pause_reason'),
});

/**
 * What happened to schedules besides their slots starting, append-only (a trigger refuses UPDATE, DELETE
 * and TRUNCATE): operators' pause, unpause and run-now (who, why), and the slots an executor skipped
 * because the previous slot's run was still open (`by` 'gnl', the open run in `run_id`). One row per
 * skipped slot and per run-now run (partial unique indexes), however many executors or clicks.
 */
export const scheduleAudit = gnl.table(
  'schedule_audit',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    scheduleId: text('schedule_id').notNull(),
    /** 'pause', 'unpause', 'run-now' or 'overlap-skip'. */
    action: text('action').notNull(),
    /** An operator's login, `os:<user>@<host>` for the command line, or 'gnl' for an executor's skip. */
    by: text('by').notNull(),
    reason: text('reason'),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** overlap-skip: the slot skipped. */
    slot: timestamp('slot', { withTimezone: true, mode: 'date' }),
    /** run-now: the run started; overlap-skip: the open run it waited for. */
    runId: text('run_id'),
  },
  (t) => [
    index('schedule_audit_schedule_idx').on(t.scheduleId, t.id),
    uniqueIndex('schedule_audit_skip_key').on(t.scheduleId, t.slot).where(sql`action = 'overlap-skip'`),
    uniqueIndex('schedule_audit_run_now_key').on(t.runId).where(sql`action = 'run-now'`),
  ],
);

/**
 * Operator accounts (lib/accounts): who may sign in to the Studio and make decisions. Never deleted
 * (decisions in the journal keep naming them); a disabled account cannot sign in. The password is
 * stored only as an scrypt hash with its own salt and parameters (`$scrypt$ln=…,r=…,p=…$salt$hash`).
 */
export const operators = gnl.table('operators', {
  /** Stable id (a UUID): what a Studio session points at. */
  id: text('id').primaryKey(),
  /** The sign-in name or e-mail, lower-case; unique. */
  login: text('login').notNull().unique('operators_login_key'),
  /** How the account is shown beside its decisions. */
  name: text('name').notNull(),
  passwordHash: text('password_hash').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  createdBy: text('created_by').notNull(),
  /** Set once: a disabled account cannot sign in, and its sessions end at their next check. */
  disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
  disabledBy: text('disabled_by'),
  disableReason: text('disable_reason'),
  /** `viewer`, `approver` or `admin` (lib/accounts/roles.ts): what the person may do. Accounts made before roles are admins. */
  role: text('role').notNull().default('admin'),
});

/**
 * Every change to an operator account, who made it and when: append-only (a trigger, migration 0005,
 * refuses UPDATE, DELETE and TRUNCATE). Never holds a password or its hash.
 */
export const operatorAudit = gnl.table(
  'operator_audit',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    operatorId: text('operator_id')
      .notNull()
      .references(() => operators.id),
    /** The account's login when the change was made. */
    login: text('login').notNull(),
    /** `added`, `disabled`, `signed-out`, `signed-out-everywhere`, `revealed-export` (a run exported with its secrets: lib/accounts/export-audit.ts) `erased-runs` (lib/accounts/erasure-audit.ts) `edited-memory` and `memory-edit-refused` (lib/studio/actions/memory-actions.ts), `exported-memory` or `erased-memory` (gnl memory export, erase). */
    action: text('action').notNull(),
    /** Who made the change (an operator's login, `os:<user>@<host>` for the command line). */
    by: text('by').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** What changed, beside the action: `{ name }` for added, `{ reason }` for disabled. */
    detail: jsonb('detail').notNull().default({}),
  },
  (t) => [index('operator_audit_operator_idx').on(t.operatorId, t.id)],
);

/**
 * One row per Studio sign-in: the session cookie names it (session-token.ts), and every page, action and
 * route reads it with its operator in one statement (lib/accounts/sessions.ts). Revoked by signing out
 * (that session), `gnl operators sign-out` (all of the operator's) and disabling the account (all).
 * Rows past their expiry are pruned when a new session starts.
 */
export const operatorSessions = gnl.table(
  'operator_sessions',
  {
    /** Random (a UUID), carried in the signed cookie. */
    id: text('id').primaryKey(),
    operatorId: text('operator_id')
      .notNull()
      .references(() => operators.id),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The cookie's own expiry: past it the session is over whatever this row says. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Set once: the session ended before its expiry (sign-out, sign-out everywhere, disabled). */
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /** Who ended it (the operator's login, or the `--by` of the command line). */
    revokedBy: text('revoked_by'),
    /** `signed-out`, `signed-out-everywhere` or `disabled`. */
    revokeReason: text('revoke_reason'),
  },
  (t) => [index('operator_sessions_operator_idx').on(t.operatorId).where(sql`revoked_at is null`), index('operator_sessions_expires_idx').on(t.expiresAt)],
);

/**
 * Failed sign-ins still inside the rate limit's window, one row per counted key (`login:<login>` and
 * `address:<ip>`) per failure. In the database so that a restart, or a second Studio process on the same
 * journal, keeps counting; rows older than the window are deleted by the next check.
 */
export const signInFailures = gnl.table(
  'sign_in_failures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    key: text('key').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('sign_in_failures_key_at_idx').on(t.key, t.at), index('sign_in_failures_at_idx').on(t.at)],
);

/**
 * The demo's crash points (lib/demo/crash-point-store.ts): the one a run was started with, armed by the
 * demo's hook around each invocation of it, in whichever process claims the run (a worker, the Studio's
 * server after a restart). Recorded before the run is queued, so no foreign key to `runs`. Not the
 * journal, not the run queue: the executor knows nothing of crash points.
 */
export const demoCrashPoints = gnl.table('demo_crash_points', {
  runId: text('run_id').primaryKey(),
  /** after-ticket-created, after-refund-answered or after-email-sent (lib/demo/crash-points.ts). */
  crashAt: text('crash_at').notNull(),
  armedAt: timestamp('armed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * What invocations streamed (lib/durable/stream/stream-log.ts): each invocation of a run writes its UI message
 * stream here in batches, the last one marked `done`; a client that reconnects replays the newest
 * invocation's batches and follows them live. Not the journal (the events are the record): a cache that
 * a replay can always rebuild, so rows are deleted once a newer invocation of the run is done.
 */
export const streamChunks = gnl.table(
  'stream_chunks',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    runId: text('run_id').notNull(),
    /** The invocation that streamed it: one random id per streamDurable call that took the run's hold. */
    invocation: text('invocation').notNull(),
    /** 0, 1, 2, … within the invocation. */
    batch: integer('batch').notNull(),
    chunks: jsonb('chunks').notNull(),
    /** The invocation's stream ended with this batch (finished, or failed with an error chunk). */
    done: boolean('done').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('stream_chunks_run_idx').on(t.runId, t.id), uniqueIndex('stream_chunks_batch_key').on(t.runId, t.invocation, t.batch)],
);

/**
 * Bulk actions' dry runs (lib/executor/bulk/bulk-operation.ts): one row per preview, naming the action, the filter as
 * resolved (ages turned into instants by the database's clock), who asked, and the counts it showed.
 * An apply claims the row once (`applied_at`), so a preview is acted on at most once; it records who
 * applied it, why, and the counts. Bookkeeping, not the journal: each run's change is journaled in the run.
 */
export const bulkPreviews = gnl.table('bulk_previews', {
  id: text('id').primaryKey(),
  action: text('action').notNull(),
  filter: jsonb('filter').notNull(),
  previewedBy: text('previewed_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  /** matched, wouldChange, skipped (by reason) when the preview was made. */
  counts: jsonb('counts').notNull(),
  appliedBy: text('applied_by'),
  applyReason: text('apply_reason'),
  appliedAt: timestamp('applied_at', { withTimezone: true, mode: 'date' }),
  /** changed, skipped, failed, once the apply finished. */
  applyCounts: jsonb('apply_counts'),
});

/** The runs a preview said would change: the snapshot an apply is limited to, read in pages by run_id. */
export const bulkPreviewRuns = gnl.table(
  'bulk_preview_runs',
  {
    previewId: text('preview_id')
      .notNull()
      .references(() => bulkPreviews.id, { onDelete: 'cascade' }),
    runId: text('run_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.previewId, t.runId] })],
);

/**
 * The notification outbox (lib/executor/notifications/notifier.ts, docs/notifications.md): one row per event that starts a
 * wait for people (a run-suspend) or a failure (a run-fail), inserted by the append statement that writes
 * the event (lib/durable/storage/event-rows.ts), so no crash can separate the two. Keyed by the event's
 * (run_id, seq): the webhook's event id is derived from it. Bookkeeping, not the journal: the delivery
 * columns are updated in place by whichever executor process claims the row (a lease, as the run queue's).
 */
export const notifications = gnl.table(
  'notifications',
  {
    runId: text('run_id').notNull(),
    seq: integer('seq').notNull(),
    /** The status the event gave the run: waiting-approval, waiting-tool-result, blocked or failed. */
    status: text('status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** pending, delivered, failed (attempts used up), superseded (the run moved on first) or expired (too old when first seen). */
    delivery: text('delivery').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** Not claimed before this instant (the backoff; database clock). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    leaseOwner: text('lease_owner'),
    leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    /** Per webhook (by its fingerprint): { target, status, httpStatus?, error?, at }. Never the URL itself (it may hold a token). */
    targets: jsonb('targets').notNull().default({}),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] }), index('notifications_due_idx').on(t.nextAttemptAt).where(sql`delivery = 'pending'`)],
);

/**
 * What the retention job dropped (lib/executor/retention/retention.ts, docs/operations.md#retention): one row per run,
 * written in the transaction that deleted the run's rows. Append-only (a trigger, migration 0016, refuses
 * UPDATE, DELETE and TRUNCATE). The same migration lets the journal's triggers allow a DELETE of a run's
 * events and unshared blobs only inside that transaction (`gnl.retention_drop` set to the run's id).
 */
export const retentionLog = gnl.table(
  'retention_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    runId: text('run_id').notNull(),
    agent: text('agent').notNull(),
    /** The run's status when dropped: completed or canceled. */
    status: text('status').notNull(),
    /** When the run ended: its last event (the summary row's updated_at). */
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }).notNull(),
    eventCount: integer('event_count').notNull(),
    /** Bytes of the events' payloads as JSON text. */
    payloadBytes: bigint('payload_bytes', { mode: 'number' }).notNull(),
    /** Bytes of the run's stored big values that were dropped with it (those no other run names). */
    blobBytes: bigint('blob_bytes', { mode: 'number' }).notNull(),
    /** The retention that applied, in days. */
    policyDays: integer('policy_days').notNull(),
    /** The job that dropped it: an executor's owner, or `cli:<os user>@<host>`. */
    droppedBy: text('dropped_by').notNull(),
    droppedAt: timestamp('dropped_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('retention_log_run_idx').on(t.runId), index('retention_log_dropped_idx').on(t.droppedAt, t.id)],
);

/**
 * Periodic jobs shared by every executor (lib/executor/retention/retention-ticker.ts): when a pass of `job` last
 * started (database clock) and who started it. A pass starts only by moving `last_started_at` forward
 * past the interval in one statement, so one executor starts it per interval, however many try.
 */
export const maintenancePasses = gnl.table('maintenance_passes', {
  job: text('job').primaryKey(),
  lastStartedAt: timestamp('last_started_at', { withTimezone: true, mode: 'date' }).notNull(),
  lastOwner: text('last_owner').notNull(),
});

/**
 * Each run's own data key (lib/durable/sealing/run-keys.ts, docs/erasure.md), wrapped by the journal key: written
 * with the run's start when run keys are on. The one table of the journal's that is changed in place:
 * erasing a run empties `wrapped` (and records who, when and why here and in gnl.erasures), after which
 * the run's sealed data can be opened by no one. `subject` (who the run is about) finds a person's runs.
 */
export const runKeys = gnl.table(
  'run_keys',
  {
    runId: text('run_id').primaryKey(),
    /** The data key sealed with the journal key (secret-box.ts envelope text); null once erased. */
    wrapped: text('wrapped'),
    subject: text('subject'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    erasedAt: timestamp('erased_at', { withTimezone: true, mode: 'date' }),
    erasedBy: text('erased_by'),
    erasedReason: text('erased_reason'),
  },
  (t) => [index('run_keys_subject_idx').on(t.subject, t.createdAt).where(sql`subject is not null`)],
);

/** Every erasure, append-only (a trigger refuses UPDATE, DELETE and TRUNCATE): which run, whose, by whom, when and why. */
export const erasures = gnl.table(
  'erasures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    runId: text('run_id').notNull(),
    subject: text('subject'),
    erasedBy: text('erased_by').notNull(),
    reason: text('reason').notNull(),
    erasedAt: timestamp('erased_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('erasures_run_idx').on(t.runId), index('erasures_at_idx').on(t.erasedAt, t.id)],
);

/**
 * Memory (lib/durable/memory, docs/memory.md): a resource's messages (by thread) and facts, each with its
 * embedding (unit length, so a dot product is the cosine; stored as float32 bytes), made by a write under an idempotency key: the
 * same key and ordinal again is the row that exists (a retried remember writes nothing new).
 */
export const memoryItems = gnl.table(
  'memory_items',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    resource: text('resource').notNull(),
    thread: text('thread'),
    /** 'message' (a thread's history) or 'fact' (remembered by an agent). */
    kind: text('kind').notNull(),
    role: text('role'),
    text: text('text').notNull(),
    /** Float32 little-endian, unit length (the exact search reads them in batches and scores in the process). */
    embedding: bytea('embedding'),
    /** The idempotency key of the write that made it, and its place in that write. */
    key: text('key').notNull(),
    ordinal: integer('ordinal').notNull(),
    runId: text('run_id'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('memory_items_resource_idx').on(t.resource, t.kind, t.id), uniqueIndex('memory_items_key_idx').on(t.key, t.ordinal)],
);

/**
 * A resource's working memory: one row per version (the newest is the value), each written with the
 * version it replaces in mind (a write that finds the version taken is a conflict, never a lost update),
 * by whom and why, under its idempotency key (written once).
 */
export const workingMemory = gnl.table(
  'working_memory',
  {
    resource: text('resource').notNull(),
    version: integer('version').notNull(),
    value: jsonb('value').notNull(),
    updatedBy: text('updated_by').notNull(),
    reason: text('reason'),
    key: text('key').notNull(),
    runId: text('run_id'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.resource, t.version] }), uniqueIndex('working_memory_key_idx').on(t.key)],
);

/**
 * What the retention job deleted of a resource's memory (GNL_MEMORY_RETENTION_DAYS, lib/executor/retention,
 * docs/memory.md#retention): one row per resource per deletion, append-only (a trigger refuses UPDATE,
 * DELETE and TRUNCATE). Counts and bytes, never the text: the log holds no memory.
 */
export const memoryRetentionLog = gnl.table(
  'memory_retention_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    resource: text('resource').notNull(),
    /** Facts and messages deleted. */
    items: integer('items').notNull(),
    /** Working-memory versions deleted (never the resource's newest). */
    versions: integer('versions').notNull(),
    /** Bytes of what was deleted: the items' text and embeddings, the versions' values as JSON text. */
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    /** Everything deleted was written before this instant (the pass's now minus policy_days). */
    olderThan: timestamp('older_than', { withTimezone: true, mode: 'date' }).notNull(),
    policyDays: integer('policy_days').notNull(),
    /** The job that deleted: an executor's owner, or `cli:<os user>@<host>`. */
    droppedBy: text('dropped_by').notNull(),
    droppedAt: timestamp('dropped_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('memory_retention_log_resource_idx').on(t.resource, t.id), index('memory_retention_log_dropped_idx').on(t.droppedAt, t.id)],
);

/**
 * API tokens: what a service (not a person) presents to the HTTP API (lib/server, docs/api.md). The
 * token itself is shown once when it is made and kept nowhere: a row holds its SHA-256 (a token is 32
 * random bytes, so a fast hash is enough) and its first characters to recognise it by. Never deleted:
 * the journal's decisions keep naming a token (`token:<name>`); revoked or expired, it is refused.
 */
export const apiTokens = gnl.table('api_tokens', {
  /** Stable id (a UUID). */
  id: text('id').primaryKey(),
  /** Unique, lower-case: how the journal and the audit name what the token did (`token:<name>`). */
  name: text('name').notNull().unique('api_tokens_name_key'),
  /** SHA-256 of the whole token, hex: how a request's token is found (one indexed read). */
  tokenHash: text('token_hash').notNull().unique('api_tokens_hash_key'),
  /** The token's first characters (`gnl_` and 6 more), to tell tokens apart in lists; not enough to use it. */
  prefix: text('prefix').notNull(),
  /** `read`, `start`, `decide`, `events`, `admin` (lib/server/api-scopes.ts). */
  scopes: jsonb('scopes').notNull(),
  /** The agents and workflows the token may touch by name; null: all of them. */
  agents: jsonb('agents'),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  createdBy: text('created_by').notNull(),
  /** Past it the token is refused; null: it does not expire. */
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
  /** Set once: the token is refused from then on. */
  revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  revokedBy: text('revoked_by'),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
});

/**
 * Every change to a token and every call made with one (method, route, status, run): append-only (a
 * trigger, migration 0020). The run's own journal names the token too for what changed a run.
 */
export const apiTokenAudit = gnl.table(
  'api_token_audit',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    tokenId: text('token_id')
      .notNull()
      .references(() => apiTokens.id),
    /** The token's name when it happened. */
    name: text('name').notNull(),
    /** `created`, `revoked`, `call` (a request made with it). */
    action: text('action').notNull(),
    /** Who made the change (an operator's login, `os:<user>@<host>`), or `token:<name>` for a call. */
    by: text('by').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** `{ scopes, agents, expiresAt }` for created, `{ reason }` for revoked, `{ method, route, status, runId? }` for a call. */
    detail: jsonb('detail').notNull().default({}),
  },
  (t) => [index('api_token_audit_token_idx').on(t.tokenId, t.id)],
);

/**
 * Webhooks set in the Studio (the Webhooks screen; docs/notifications.md), beside those of
 * GNL_NOTIFY_WEBHOOK_URL: every executor process that sends notifications reads them, so a change takes
 * effect without a restart. The address and the signing key are sealed with the journal key when one is
 * set (an address may carry a token: a Slack webhook's does); only the origin is ever shown.
 */
export const webhooks = gnl.table('webhooks', {
  /** 12 hex characters of the address's SHA-256: how the outbox records this webhook's results. */
  id: text('id').primaryKey(),
  label: text('label').notNull(),
  /** The address: a string, or the journal key's envelope. */
  url: jsonb('url').notNull(),
  /** The address's origin: what may be shown. */
  origin: text('origin').notNull(),
  /** `json` (signed) or `slack`. */
  format: text('format').notNull(),
  /** HMAC key of GNL-Signature: a string or an envelope, as `url`. */
  secret: jsonb('secret').notNull(),
  /** After a rotation, the key before it: requests are signed with both until `previous_until`. */
  previousSecret: jsonb('previous_secret'),
  previousUntil: timestamp('previous_until', { withTimezone: true, mode: 'date' }),
  /**
   * A paused webhook is sent nothing; what is announced meanwhile is not sent to it later (with no other
   * webhook set, the outbox keeps those rows untried, and one not tried within 72 h expires).
   */
  enabled: boolean('enabled').notNull().default(true),
  createdBy: text('created_by').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedBy: text('updated_by').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** Every change to a webhook and every test sent to one: append-only (a trigger, migration 0021). */
export const webhookAudit = gnl.table(
  'webhook_audit',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    webhookId: text('webhook_id').notNull(),
    /** `created`, `secret-rotated`, `paused`, `resumed`, `removed`, `test-sent`. */
    action: text('action').notNull(),
    by: text('by').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** `{ label, origin, format }` for created, `{ reason }`, `{ httpStatus, error, ms }` for a test. */
    detail: jsonb('detail').notNull().default({}),
  },
  (t) => [index('webhook_audit_webhook_idx').on(t.webhookId, t.id)],
);
