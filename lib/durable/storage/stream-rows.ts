/**
 * A run's stream in SQL (gnl.stream_chunks, migration 0011): one row per batch an invocation streamed
 * (stream-log.ts says what a batch is and why it is not an event). The batches of every stream of this
 * process go out together, one statement at a time (StreamBatchWriter), each row checked against its
 * writer's holder token on Postgres (a writer whose run was taken over writes nothing), and on PGlite
 * announced inside the statement (notifications.ts says why the two differ); on Postgres only while someone
 * follows the run's stream (watch-locks.ts). A batch that ends an
 * invocation's stream also deletes the run's batches of every other invocation: the newest finished
 * stream is the one a client replays.
 *
 * Chunks are redacted as the Studio shows payloads (secret-fields.ts) before they are written: a
 * stream is read by whoever may read the chat, not only by the runtime. A run with a key of its own
 * (run-keys.ts) has its batches sealed whole with it (an envelope in place of the array), so erasing the
 * run leaves none of its words readable here either; an erased run's batches read as none.
 */
import { ENVELOPE_KEY, JournalDataError, type JournalSecrets, redactSecrets, type StreamBatch, type StreamBatchInput } from '../internal';
import { ensureRunKeys } from './run-key-rows';
import { NOTIFY_CHANNEL } from './notifications';
import { streamWatchedClause } from './watch-locks';
import type { SqlQuery } from './sql-driver';

/** Most chunks in one batch and most bytes of one batch's JSON: a writer splits longer ones. */
export const MAX_CHUNKS_PER_BATCH = 1000;
export const MAX_BATCH_BYTES = 1024 * 1024;

/**
 * Every stream batch waiting in this process, written in ONE statement (bench figure 7: one INSERT per
 * batch took 37 % of a saturated journal's commit rate at 64 streams; one per flush for all streams is
 * within the noise). At most one statement is in flight per storage; batches queued meanwhile go into the
 * next one, in the order they were queued (a stream's batches keep their order: ids grow within a statement).
 */
const insertStatement = (notify: boolean) => `with b as (
      select * from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[]) with ordinality
        as t(run_id, invocation, batch, chunks, done, holder, ord)),
    w as (
      insert into gnl.stream_chunks (run_id, invocation, batch, chunks, done)
      select b.run_id, b.invocation, b.batch, b.chunks::jsonb, b.done::boolean from b
      where b.holder is null or exists (select 1 from gnl.runs r where r.run_id = b.run_id and r.holder = b.holder)
      order by b.ord
      returning id, run_id, invocation, batch)${
        notify
          ? `,
    n as (select count(pg_notify('${NOTIFY_CHANNEL}', 's' || w.id || ':' || w.run_id)) as sent from w)`
          : ''
      }
    select w.id, w.run_id, w.invocation, w.batch${notify ? '' : `, ${streamWatchedClause('w.run_id')} as watched`} from w${notify ? ', n' : ''}`;

const INSERT = { plain: insertStatement(false), notifying: insertStatement(true) };

interface Queued {
  runId: string;
  holder: string | undefined;
  batch: StreamBatchInput;
  json: string;
  resolve(id: number | undefined): void;
  reject(error: unknown): void;
}

/** Most batches in one statement. */
const MAX_ROWS_PER_STATEMENT = 500;

export class StreamBatchWriter {
  private queue: Queued[] = [];
  private writing = false;

  constructor(
    private readonly db: () => Promise<SqlQuery>,
    private readonly options: {
      notifyInStatement: boolean;
      secrets: JournalSecrets;
      /** After commit (Postgres): the highest batch id written for each run. */
      announce?: (runId: string, batchId: number) => void;
    },
  ) {}

  /** Queues one batch; resolves with its id once written, undefined when `holder` no longer holds the run. */
  write(runId: string, holder: string | undefined, batch: StreamBatchInput): Promise<number | undefined> {
    const json = encodeChunks(batch, this.options.secrets, runId);
    return new Promise((resolve, reject) => {
      this.queue.push({ runId, holder, batch, json, resolve, reject });
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const items = this.queue.splice(0, MAX_ROWS_PER_STATEMENT);
        try {
          const written = await this.insert(items);
          for (const item of items) item.resolve(written.get(keyOf(item.runId, item.batch.invocation, item.batch.batch)));
        } catch (error) {
          for (const item of items) item.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async insert(items: Queued[]): Promise<Map<string, number>> {
    const db = await this.db();
    const rows = await db.query<{ id: number | string; run_id: string; invocation: string; batch: number; watched?: boolean }>(
      this.options.notifyInStatement ? INSERT.notifying : INSERT.plain,
      [
        items.map((item) => item.runId),
        items.map((item) => item.batch.invocation),
        items.map((item) => item.batch.batch),
        items.map((item) => item.json),
        items.map((item) => (item.batch.done ? 'true' : 'false')), // postgres.js cannot send a boolean[]
        items.map((item) => item.holder ?? null),
      ],
    );
    const written = new Map<string, number>();
    const highest = new Map<string, number>();
    for (const row of rows) {
      const id = Number(row.id);
      written.set(keyOf(row.run_id, row.invocation, row.batch), id);
      // Announced only while someone may follow the run's stream (watch-locks.ts).
      if (row.watched !== false) highest.set(row.run_id, Math.max(highest.get(row.run_id) ?? 0, id));
    }
    const finished = items.filter((item) => item.batch.done && written.has(keyOf(item.runId, item.batch.invocation, item.batch.batch)));
    if (finished.length > 0) {
      // The newest finished stream of each run is the one a client replays: older invocations' batches go.
      await db.query(
        `delete from gnl.stream_chunks s using unnest($1::text[], $2::text[]) as d(run_id, invocation)
         where s.run_id = d.run_id and s.invocation <> d.invocation`,
        [finished.map((item) => item.runId), finished.map((item) => item.batch.invocation)],
      );
    }
    for (const [runId, id] of highest) this.options.announce?.(runId, id);
    return written;
  }
}

function keyOf(runId: string, invocation: string, batch: number): string {
  return `${batch}\u0000${invocation}\u0000${runId}`;
}

function encodeChunks(batch: StreamBatchInput, secrets: JournalSecrets, runId: string): string {
  if (!Number.isSafeInteger(batch.batch) || batch.batch < 0) throw new JournalDataError(`Stream batch number must be a whole number ≥ 0 (got ${batch.batch}).`);
  if (batch.chunks.length > MAX_CHUNKS_PER_BATCH)
    throw new JournalDataError(`A stream batch holds at most ${MAX_CHUNKS_PER_BATCH} chunks (got ${batch.chunks.length}).`);
  let json = JSON.stringify(batch.chunks);
  if (secrets.mightHold(json)) json = JSON.stringify(redactSecrets(batch.chunks, secrets.fields));
  if (Buffer.byteLength(json) > MAX_BATCH_BYTES)
    throw new JournalDataError(`A stream batch is at most ${MAX_BATCH_BYTES} bytes of JSON (got ${Buffer.byteLength(json)}).`);
  // The run's key was loaded by whoever holds the run (its start or its load); never written in clear for want of it.
  return secrets.sealsWhole(runId) ? JSON.stringify(secrets.sealWhole(JSON.parse(json), runId)) : json;
}

export async function readStreamBatches(db: SqlQuery, runId: string, afterId: number, limit: number, secrets: JournalSecrets): Promise<StreamBatch[]> {
  await ensureRunKeys(db, secrets, [runId]);
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
    chunks: chunksOf(typeof row.chunks === 'string' ? JSON.parse(row.chunks) : row.chunks, runId, row.id, secrets),
    done: row.done,
    at: new Date(row.created_at),
  }));
}

/** A batch's chunks as stored: the array, or the envelope it was sealed in with its run's key (none once erased). */
function chunksOf(stored: unknown, runId: string, id: number | string, secrets: JournalSecrets): unknown[] {
  if (Array.isArray(stored)) return stored;
  const envelope = (stored as Record<string, unknown> | null)?.[ENVELOPE_KEY];
  if (typeof envelope !== 'string') throw new JournalDataError(`Stream batch ${id} of run "${runId}" is neither chunks nor a sealed envelope.`);
  const opened = secrets.openEnvelope(envelope, runId, `run "${runId}" stream batch ${id}`);
  return Array.isArray(opened) ? opened : [];
}
