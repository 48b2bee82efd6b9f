/**
 * The journal's tables, in their own Postgres schema `gnl`.
 *
 * `run_events` is the journal: append-only, keyed by (run_id, seq), never updated or deleted.
 * `runs` is a summary for listing, derived from the events and written in the same statement
 * as every append; it can always be rebuilt from `run_events`.
 */
import { index, integer, jsonb, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

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
