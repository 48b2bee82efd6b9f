/**
 * Writes a run brought in from an export (Journal.importRun, lib/durable/export/run-export.ts): the run's row
 * and every event with the sequence number and time it was recorded with, in ONE statement, so the
 * imported journal reads back as the exported one did. Only inserts: the journal stays append-only.
 *
 * Events are encoded as any append encodes them (event-rows.ts encodeStored): secrets sealed with this
 * journal's key and the run id they are written under, values over 64 KiB stored apart in gnl.payloads
 * by the same statement. The row's summary is the projection's (RunState: status and pending with its
 * decisions; model steps counted as summaryChange counts them). `on conflict do nothing` on the run's
 * row: a run id that exists matches nothing, writes nothing, and is refused by the caller.
 */
import { assertValidEvent, JournalDataError, type JournalSecrets, type RecordedEvent, RunState, summaryChange } from '../internal';
import { BLOBS_COLUMN, encodePending, encodeStored, insertBlobs } from './event-rows';
import { NOTIFY_CHANNEL } from './notifications';
import { blobsParameter } from './payload-blobs';
import type { SqlQuery } from './sql-driver';

const IMPORT = `with r as (
      insert into gnl.runs (run_id, status, last_seq, step_count, input, pending, holder, created_at, updated_at)
      select $1::text, $2::text, $3::int, $4::int, x.value->'payload'->'input', $5::text::jsonb, null, $6::timestamptz, $7::timestamptz
      from jsonb_array_elements($8::text::jsonb) as x(value) where x.value->>'type' = 'run-start'
      on conflict (run_id) do nothing
      returning run_id),
    e as (
      insert into gnl.run_events (run_id, seq, type, payload, blobs, created_at)
      select $1::text, (x.value->>'seq')::int, x.value->>'type', x.value->'payload', ${BLOBS_COLUMN}, (x.value->>'at')::timestamptz
      from r, jsonb_array_elements($8::text::jsonb) as x(value)
      returning seq),
    k as (
      insert into gnl.run_keys (run_id, wrapped, subject)
      select run_id, $10::text, $11::text from r where $10::text is not null),
    ${insertBlobs('$9')}
    select count(*)::int as written from e`;

/**
 * Inserts the run and its events; false when the run id is taken (nothing written). `notify`: the
 * write is announced inside the transaction (PGlite's live notifications), else by the caller after commit.
 */
export async function insertImportedRun(
  db: SqlQuery,
  args: { runId: string; events: readonly RecordedEvent[]; secrets: JournalSecrets; notify: boolean },
): Promise<boolean> {
  const { runId, events, secrets } = args;
  if (events.length === 0) throw new JournalDataError(`importRun: run "${runId}" has no events; a run starts with run-start.`);
  events.forEach((event, i) => {
    if (event.seq !== i + 1 || (event.type === 'run-start') !== (i === 0))
      throw new JournalDataError(
        `importRun: event ${i + 1} of run "${runId}" is #${event.seq} (${event.type}); a run starts with run-start as #1, numbered 1..n.`,
      );
    assertValidEvent(strip(event));
  });
  // With run keys on, an imported run gets a key of its own here, as a run started here would.
  const ring = secrets.ring;
  const wrapped = ring && secrets.createsRunKeys ? ring.create(runId).wrapped : null;
  if (ring && wrapped === null) ring.remember(runId, { kind: 'none' });
  const first = events[0] as RecordedEvent;
  try {
    return await insertEncoded(db, { ...args, wrapped, subject: first.type === 'run-start' ? (first.input.subject ?? null) : null });
  } catch (error) {
    ring?.forget(runId);
    throw error;
  }
}

async function insertEncoded(
  db: SqlQuery,
  args: { runId: string; events: readonly RecordedEvent[]; secrets: JournalSecrets; notify: boolean; wrapped: string | null; subject: string | null },
): Promise<boolean> {
  const { runId, events, secrets } = args;
  const stored = events.map((event) => {
    const { json, blobs } = encodeStored(strip(event), runId, secrets);
    return { json: `${json.slice(0, -1)},"seq":${event.seq},"at":${JSON.stringify(event.at.toISOString())}}`, blobs };
  });
  const state = new RunState([...events]);
  const first = events[0] as RecordedEvent;
  const last = events[events.length - 1] as RecordedEvent;
  const [row] = await db.query<{ written: number }>(IMPORT, [
    runId,
    state.status ?? 'running',
    last.seq,
    summaryChange(events).stepDelta,
    encodePending([...state.pending], runId, secrets, false),
    first.at.toISOString(),
    last.at.toISOString(),
    `[${stored.map((event) => event.json).join(',')}]`,
    blobsParameter(stored.flatMap((event) => event.blobs)),
    args.wrapped,
    args.subject,
  ]);
  if (!row || row.written === 0) {
    secrets.ring?.forget(runId); // the id was taken: the key made for it is no one's
    return false;
  }
  if (row.written !== events.length) throw new JournalDataError(`importRun: ${row.written} of ${events.length} events of run "${runId}" were written.`);
  if (args.notify) await db.query('select pg_notify($1::text, $2::text)', [NOTIFY_CHANNEL, `${last.seq}:${runId}`]);
  return true;
}

function strip(event: RecordedEvent) {
  const { seq: _seq, at: _at, ...journalEvent } = event;
  return journalEvent as Parameters<typeof encodeStored>[0];
}
