/**
 * A run's stream in SQL (gnl.stream_chunks, migration 0011): one row per batch an invocation streamed
 * (stream-log.ts says what a batch is and why it is not an event). One statement per batch: the insert,
 * checked against the writer's holder token on Postgres (a writer whose run was taken over writes
 * nothing), and on PGlite the live notification inside it (notifications.ts says why the two differ).
 * The batch that ends an invocation's stream also deletes the run's batches of every other invocation:
 * the newest finished stream is the one a client replays.
 *
 * Chunks are redacted as the Studio shows payloads (secret-fields.ts) before they are written: a
 * stream is read by whoever may read the chat, not only by the runtime, so nothing in it is sealed.
 */
import { JournalDataError, type JournalSecrets, redactSecrets, type StreamBatch, type StreamBatchInput } from '../internal';
import { NOTIFY_CHANNEL } from './notifications';
import type { SqlQuery } from './sql-driver';

/** Most chunks in one batch and most bytes of one batch's JSON: a writer splits longer ones. */
export const MAX_CHUNKS_PER_BATCH = 1000;
export const MAX_BATCH_BYTES = 1024 * 1024;

const insertStatement = (notify: boolean) => `with w as (
      insert into gnl.stream_chunks (run_id, invocation, batch, chunks, done)
      select $1::text, $2::text, $3::int, $4::text::jsonb, $5::boolean
      where $6::text is null or exists (select 1 from gnl.runs where run_id = $1::text and holder = $6::text)
      returning id)${notify ? `,\n    n as (select pg_notify('${NOTIFY_CHANNEL}', 's' || w.id || ':' || $1::text) from w)` : ''}
    select w.id from w${notify ? ', n' : ''}`;

const INSERT = { plain: insertStatement(false), notifying: insertStatement(true) };

export async function insertStreamBatch(
  db: SqlQuery,
  runId: string,
  batch: StreamBatchInput,
  options: { holder: string | undefined; notifyInStatement: boolean; secrets: JournalSecrets },
): Promise<number | undefined> {
  if (!Number.isSafeInteger(batch.batch) || batch.batch < 0) throw new JournalDataError(`Stream batch number must be a whole number ≥ 0 (got ${batch.batch}).`);
  if (batch.chunks.length > MAX_CHUNKS_PER_BATCH)
    throw new JournalDataError(`A stream batch holds at most ${MAX_CHUNKS_PER_BATCH} chunks (got ${batch.chunks.length}).`);
  let json = JSON.stringify(batch.chunks);
  if (options.secrets.mightHold(json)) json = JSON.stringify(redactSecrets(batch.chunks, options.secrets.fields));
  if (Buffer.byteLength(json) > MAX_BATCH_BYTES)
    throw new JournalDataError(`A stream batch is at most ${MAX_BATCH_BYTES} bytes of JSON (got ${Buffer.byteLength(json)}).`);
  const [row] = await db.query<{ id: number | string }>(options.notifyInStatement ? INSERT.notifying : INSERT.plain, [
    runId,
    batch.invocation,
    batch.batch,
    json,
    batch.done,
    options.holder ?? null,
  ]);
  if (!row) return undefined;
  if (batch.done) {
    await db.query('delete from gnl.stream_chunks where run_id = $1::text and invocation <> $2::text', [runId, batch.invocation]);
  }
  return Number(row.id);
}

export async function readStreamBatches(db: SqlQuery, runId: string, afterId: number, limit: number): Promise<StreamBatch[]> {
  const rows = await db.query<{ id: number | string; invocation: string; batch: number; chunks: unknown; done: boolean; created_at: Date | string }>(
    `select id, invocation, batch, chunks, done, created_at from gnl.stream_chunks
     where run_id = $1::text and id > $2::bigint order by id limit $3::int`,
    [runId, afterId, limit],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    runId,
    invocation: row.invocation,
    batch: row.batch,
    chunks: (typeof row.chunks === 'string' ? JSON.parse(row.chunks) : row.chunks) as unknown[],
    done: row.done,
    at: new Date(row.created_at),
  }));
}
