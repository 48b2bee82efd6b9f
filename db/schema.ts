/**
 * The journal's tables, in their own Postgres schema `gnl`.
 *
 * `run_events` is the journal: append-only, keyed by (run_id, seq), never updated or deleted.
 * `runs` is a summary for listing, derived from the events and written in the same statement
 * as every append; it can always be rebuilt from `run_events`.
 * `run_queue` is the executor layer's bookkeeping (lib/executor): which runs are runnable and which
 * executor holds a time lease on each. It is not the journal: rows are updated in place.
 */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

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
  (t) => [index('runs_created_idx').on(t.createdAt, t.runId), index('runs_status_created_idx').on(t.status, t.createdAt, t.runId)],
);

export const runEvents = gnl.table(
  'run_events',
  {
    runId: text('run_id').notNull(),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

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
    /** The demo's crash point the run was started with, armed for each of its invocations. */
    crashAt: text('crash_at'),
    /** An executor should invoke the run (started, resumed, or given up by an executor that stopped). */
    runnable: boolean('runnable').notNull().default(true),
    /** Bumped by every start and resume: an invocation clears `runnable` only if no resume came meanwhile. */
    wakeups: integer('wakeups').notNull().default(1),
    queuedAt: timestamp('queued_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** The executor holding the lease (`<host>:<pid>:<random>`), or null. */
    leaseOwner: text('lease_owner'),
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
