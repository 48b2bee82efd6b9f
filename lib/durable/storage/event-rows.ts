/**
 * The journal's hot path in SQL: create a run, append events, read them back. Each is ONE prepared
 * statement: one round trip and, outside a decision's transaction, one commit.
 *
 * An append bumps the run's last_seq (taking the row lock that orders a run's writers), inserts the
 * events numbered from the old value, and updates the summary the listings read. A writer with a
 * fence (Postgres) also requires, in the same WHERE, that the run's `holder` is still its token (no one
 * took the run over, even from a session that reuses its pid) and that the run's advisory lock is still
 * held (its side session did not die; asked of the lock manager for that key, run-locks.ts): otherwise no
 * row matches and nothing is written.
 * A canceled run stays canceled whatever a writer appends, and the append returns the status, so a
 * writer learns of a cancel from anywhere on its next append, at no extra round trip.
 *
 * Values over 64 KiB are cut out of the event rows (payload-blobs.ts) and inserted into gnl.payloads
 * by the same statement, after the run's row matched (so a refused write leaves no body behind); the
 * load fetches the bodies its events name in the same query. A run-complete's answer (the SDK's whole
 * result, read whole and never queried inside) is kept in the row's json column `answer`, not in its
 * jsonb payload: it leaves the server as stored (encodeStored's answerApart; readEvents puts it back).
 */
import {
  assertValidEvent,
  encodeEventParts,
  encodeJson,
  decodeJson,
  decodeOwnedJson,
  type JournalEvent,
  type PendingItem,
  type RecordedEvent,
  type RunInput,
  type TraceContext,
  summaryChange,
  HoldLostError,
  JournalDataError,
  RunMovedError,
  RunErasedError,
  RunRetiredError,
  JournalSecrets,
  type JournalSecretsOptions,
} from '../internal';
import { NOTIFY_CHANNEL } from './notifications';
import { type Blob, blobsParameter, hashesOf, refsIn, resolveRefs, splitEvent } from './payload-blobs';
import { ensureRunKeys, erasureInDatabase } from './run-key-rows';
import { lockHeldClause } from './run-locks';
import { watchedClause } from './watch-locks';
import type { SqlQuery } from './sql-driver';

type Written = { seq: number; created_at: Date | string; last_seq: number; status?: string; watched?: boolean };

/**
 * The append statement. `notify`: NOTIFY inside the statement (delivered at its commit).
 * JSON goes in as text (`$n::text::jsonb`): a parameter typed jsonb would be JSON-encoded again by postgres.js.
 * An erased run (its key row emptied, run-key-rows.ts) matches no row either, whatever the writer's key
 * cache holds: erasure takes effect for every process at its commit (it takes the run's row lock first,
 * so a statement that waited for it re-reads the run; one that starts after it sees the emptied key).
 * `$9`, when set, is the last_seq the writer loaded: a run that moved since (a decision, cancel or resume
 * request committed under the row lock) matches no row and nothing is written. Read committed re-checks
 * the WHERE on the row version it waited for, so the check and the write are one atomic step.
 * `$10`: the bodies of the values cut out of the events (payload-blobs.ts), or null; each event in `$7`
 * names its own in `blobs`.
 * `$11`, `$12`: a run-complete's answer apart from its payload (encodeStored's `answerApart`), its 1-based
 * place in the batch and its JSON text, stored in the json column `answer`; both null for every other batch.
 * `announce` (only for a batch that leaves the run waiting for people or failed, summaryChange's `announce`):
 * the statement also inserts the notification outbox row of the event that set that status (`$13`, its
 * 1-based place in the batch), unless the stored run is canceled: the event and its announcement commit
 * together or not at all (docs/notifications.md). Every other append is the statement without it.
 */
export function appendStatement(notify: boolean, announce = false, watch = false): string {
  return `with r as (
      update gnl.runs set
        last_seq = last_seq + $2::int,
        step_count = step_count + $3::int,
        status = case when status = 'canceled' then status else coalesce($4::text, status) end,
        pending = case when status = 'canceled' then '[]'::jsonb else coalesce($5::text::jsonb, pending) end,
        updated_at = now()
      where run_id = $1::text and ($6::text is null or holder = $6::text) and ($9::int is null or last_seq = $9::int)
        and ($8::text is null or ${lockHeldClause('$8')})
        and not exists (select 1 from gnl.run_keys k where k.run_id = $1::text and k.wrapped is null)
      returning last_seq - $2::int as base, last_seq, status),
    e as (
      insert into gnl.run_events (run_id, seq, type, payload, blobs, answer)
      select $1::text, r.base + x.ord, x.value->>'type', x.value->'payload', ${BLOBS_COLUMN}, case when x.ord = $11::int then $12::text::json end
      from r, jsonb_array_elements($7::text::jsonb) with ordinality as x(value, ord)
      returning seq, created_at),
    ${insertBlobs('$10')}${notifyClause(notify)}${announce ? ANNOUNCE_CLAUSE : ''}${watchClause(watch)}
    select e.seq, e.created_at, r.last_seq, r.status${watch ? ', w.watched' : ''} from e, r${notify ? ', n' : ''}${watch ? ', w' : ''}`;
}

// After-commit announcing (Postgres): whether anyone listens for the run, asked inside the statement (watch-locks.ts).
function watchClause(watch: boolean): string {
  return watch ? `,\n    w as (select ${watchedClause('$1::text')} as watched)` : '';
}

// A data-modifying CTE runs whether or not it is read. `r.status` is the stored status after the update: a
// canceled run keeps 'canceled' and announces nothing. A row already there (never: the seq is new) is left.
const ANNOUNCE_CLAUSE = `,
    o as (
      insert into gnl.notifications (run_id, seq, status)
      select $1::text, r.base + $13::int, r.status from r where r.status = $4::text
      on conflict (run_id, seq) do nothing)`;

// A run id that retention dropped (its gnl.retention_log row is the tombstone) is not created again: the
// job it names ran (RunRetiredError). The run row's input is the run-start event's, as stored (with run keys on, its data key is stored
// wrapped beside it, `k`: run-keys.ts): sealed once (the run id is the envelopes'
// context, so they open in either place) and naming the same blobs.
const CREATE_STATEMENT = (notify: boolean, watch = false) => `with r as (
      insert into gnl.runs (run_id, status, last_seq, step_count, input, pending, holder)
      select $1::text, 'running', 1, 0, $3::text::jsonb->'payload'->'input', '[]'::jsonb, $4::text
      where not exists (select 1 from gnl.retention_log t where t.run_id = $1::text)
      on conflict (run_id) do nothing
      returning run_id, last_seq),
    e as (
      insert into gnl.run_events (run_id, seq, type, payload, blobs)
      select run_id, 1, 'run-start', x.value->'payload', ${BLOBS_COLUMN} from r, (select $3::text::jsonb as value) x
      returning seq, created_at),
    k as (
      insert into gnl.run_keys (run_id, wrapped, subject)
      select run_id, $5::text, $6::text from r where $5::text is not null),
    ${insertBlobs('$2')}${notifyClause(notify)}${watchClause(watch)}
    select e.seq, e.created_at, r.last_seq${watch ? ', w.watched' : ''} from e, r${notify ? ', n' : ''}${watch ? ', w' : ''}`;

// An event's `blobs` (the hashes it names) as the text[] column; null for an event that names none.
export const BLOBS_COLUMN = `case when x.value ? 'blobs' then array(select jsonb_array_elements_text(x.value->'blobs')) end`;

// A data-modifying CTE runs whether or not it is read; `from r` writes the bodies only if the run's row
// was written. A body already stored (another run, an earlier event) is left as it is: same hash, same text.
export function insertBlobs(param: string): string {
  return `b as (
      insert into gnl.payloads (hash, bytes, body)
      select x->>'h', (x->>'n')::bigint, x->'b' from r, jsonb_array_elements(${param}::text::jsonb) as x
      on conflict (hash) do nothing)`;
}

// A CTE with a volatile function is evaluated once, and only because the final select reads it.
function notifyClause(notify: boolean): string {
  return notify ? `,\n    n as (select pg_notify('${NOTIFY_CHANNEL}', r.last_seq || ':' || $1::text) from r)` : '';
}

const APPEND = {
  plain: appendStatement(false),
  notifying: appendStatement(true),
  watching: appendStatement(false, false, true),
  announcing: appendStatement(false, true),
  notifyingAnnouncing: appendStatement(true, true),
  watchingAnnouncing: appendStatement(false, true, true),
};
const CREATE = { plain: CREATE_STATEMENT(false), notifying: CREATE_STATEMENT(true), watching: CREATE_STATEMENT(false, true) };

/** What an append checks inside its statement to be sure its writer still holds the run. */
export interface Fence {
  /** The token written into the run's `holder` when this writer took it. */
  holder: string;
  /**
   * The run's advisory lock key, which some session must still hold (run-locks.ts, lockHeldClause). With the
   * token that is the writer's side session, or a taker's whose take has not committed yet: its update of
   * `holder` waits for this append's row lock and its read of the run comes after it, so the append lands
   * before the takeover, never after it (journal-contract.test.ts, "a takeover in flight").
   */
  lockKey: string;
}

export interface WriteOptions {
  fence?: Fence;
  /** NOTIFY inside the statement (PGlite); otherwise the caller announces after commit. */
  notifyInStatement: boolean;
  /**
   * Announcing after commit: told, from inside the statement, whether anyone may be listening for the run
   * (watch-locks.ts), so the caller announces only then. Absent: the caller announces every write.
   */
  onWatched?: (watched: boolean) => void;
  /** Seals secrets before they are written (secret-journal.ts). Default: the default field list, no key (stored in clear, with a warning). */
  secrets?: JournalSecrets;
}

let defaultSecrets: JournalSecrets | undefined;
/** The journal's secrets rules when a caller gives none. */
export function secretsOrDefault(secrets: JournalSecrets | undefined): JournalSecrets {
  if (secrets) return secrets;
  defaultSecrets ??= new JournalSecrets();
  return defaultSecrets;
}

/** A storage's `secrets` option as the journal uses it. */
export function journalSecrets(option: JournalSecrets | JournalSecretsOptions | undefined): JournalSecrets {
  return option instanceof JournalSecrets ? option : option ? new JournalSecrets(option) : secretsOrDefault(undefined);
}

/**
 * The event as stored: encoded, secrets sealed (only when the encoded text may hold one: the hot path
 * pays one scan), then values over the threshold cut out. Sealing comes first, so a body never holds a
 * secret in clear. `json` carries `blobs`, the hashes it names, beside type and payload.
 */
export function encodeStored(
  event: JournalEvent,
  runId: string,
  secrets: JournalSecrets,
  options: { answerApart?: boolean } = {},
): { json: string; blobs: Blob[]; answer?: string } {
  let parts = encodeEventParts(event);
  if (secrets.sealsWhole(runId) || secrets.mightHold(parts.json)) {
    const sealed = secrets.sealEvent(event, runId);
    if (sealed !== event) parts = encodeEventParts(sealed);
  }
  const split = splitEvent(parts);
  if (options.answerApart && split.blobs.length === 0) {
    const apart = answerApart(parts);
    if (apart) return { ...apart, blobs: [] };
  }
  const hashes = hashesOf(split.blobs);
  return { json: hashes ? `${split.json.slice(0, -1)},"blobs":${JSON.stringify(hashes)}}` : split.json, blobs: split.blobs };
}

/**
 * A run-complete's answer as JSON text of its own and the event without it, for the `answer` column (a
 * json column: read whole, it leaves the server as stored, without jsonb's output). Sealed first (the
 * parts are the sealed event's), encoded as the payload would hold it; undefined for any other event.
 */
function answerApart(parts: { type: string; payload: unknown }): { json: string; answer: string } | undefined {
  if (parts.type !== 'run-complete' || typeof parts.payload !== 'object' || parts.payload === null) return undefined;
  // A JSON null would read back as no value at all: such an answer (none is made) stays in the payload.
  const { answer, ...rest } = parts.payload as Record<string, unknown>;
  if (answer === null || answer === undefined) return undefined;
  return { json: JSON.stringify({ type: parts.type, payload: rest }), answer: JSON.stringify(answer) };
}

export async function createRun(
  db: SqlQuery,
  runId: string,
  input: RunInput,
  options: WriteOptions & { trace?: TraceContext; by?: string },
): Promise<RecordedEvent> {
  const event = {
    type: 'run-start' as const,
    input,
    ...(options.trace ? { trace: options.trace } : {}),
    ...(options.by !== undefined ? { by: options.by } : {}),
  };
  assertValidEvent(event);
  const secrets = secretsOrDefault(options.secrets);
  // With run keys on, the run's own key is made first: the start's user data is sealed with it.
  const ring = secrets.ring;
  const wrapped = ring && secrets.createsRunKeys ? ring.create(runId).wrapped : null;
  if (ring && wrapped === null) ring.remember(runId, { kind: 'none' });
  try {
    const encoded = encodeStored(event, runId, secrets); // refused over the size limit; the run row keeps the input too (for listings)
    const watch = !options.notifyInStatement && options.onWatched !== undefined;
    const [row] = await db.query<Written>(options.notifyInStatement ? CREATE.notifying : watch ? CREATE.watching : CREATE.plain, [
      runId,
      blobsParameter(encoded.blobs),
      encoded.json,
      options.fence?.holder ?? null,
      wrapped,
      input.subject ?? null,
    ]);
    if (!row) {
      await assertNotRetired(db, runId);
      // Created meanwhile by another invocation (its hold came and went between this one's read and its hold): read it again.
      const [run] = await db.query<{ last_seq: number }>('select last_seq from gnl.runs where run_id = $1::text', [runId]);
      if (run) throw new RunMovedError({ runId, expectedLastSeq: 0, lastSeq: run.last_seq });
      throw new JournalDataError(`Run "${runId}" could not be created.`);
    }
    if (watch) options.onWatched?.(row.watched !== false);
    return { ...event, seq: row.seq, at: new Date(row.created_at) };
  } catch (error) {
    ring?.forget(runId); // not created: the key made for it is no one's
    throw error;
  }
}

export async function appendEvents(
  db: SqlQuery,
  runId: string,
  events: readonly JournalEvent[],
  options: WriteOptions & {
    pending?: PendingItem[];
    /** `pending` was read from the run row as stored (a decision): its secrets are sealed already. */
    pendingSealed?: boolean;
    /** Append only if the run's last_seq is still this one; otherwise nothing is written and RunMovedError says where the run is. */
    expectedLastSeq?: number;
    onStatus?: (status: string | undefined) => void;
  },
): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const secrets = secretsOrDefault(options.secrets);
  // Check and encode first: an event off its schema, or data the journal cannot hold (a cycle, over
  // MAX_EVENT_BYTES), is refused before anything is written.
  for (const event of events) assertValidEvent(event);
  await ensureRunKeys(db, secrets, [runId]);
  // At most one answer apart (a batch holds one run-complete): the statement takes one.
  let apart = -1;
  const stored = events.map((event, i) => {
    const encoded = encodeStored(event, runId, secrets, { answerApart: apart < 0 });
    if (encoded.answer !== undefined) apart = i;
    return encoded;
  });
  const encoded = `[${stored.map((event) => event.json).join(',')}]`;
  const change = summaryChange(events);
  const pending = options.pending ?? change.pending;
  const pendingJson = pending ? encodePending(pending, runId, secrets, options.pendingSealed === true) : null;
  const { announce } = change;
  const watch = !options.notifyInStatement && options.onWatched !== undefined;
  const statement = announce
    ? options.notifyInStatement
      ? APPEND.notifyingAnnouncing
      : watch
        ? APPEND.watchingAnnouncing
        : APPEND.announcing
    : options.notifyInStatement
      ? APPEND.notifying
      : watch
        ? APPEND.watching
        : APPEND.plain;
  const rows = await db.query<Written>(statement, [
    runId,
    events.length,
    change.stepDelta,
    change.status ?? null,
    pendingJson,
    options.fence?.holder ?? null,
    encoded,
    options.fence?.lockKey ?? null,
    options.expectedLastSeq ?? null,
    blobsParameter(stored.flatMap((event) => event.blobs)),
    apart < 0 ? null : apart + 1,
    apart < 0 ? null : (stored[apart]?.answer ?? null),
    ...(announce ? [announce.index + 1] : []),
  ]);
  if (rows.length !== events.length) {
    const erasure = await erasureInDatabase(db, runId);
    if (erasure) throw new RunErasedError(runId, erasure);
    if (options.expectedLastSeq !== undefined) await assertNotMoved(db, runId, options.expectedLastSeq);
    if (options.fence) throw new HoldLostError({ runId });
    throw new JournalDataError(`Run "${runId}" does not exist; nothing was appended.`);
  }
  rows.sort((a, b) => a.seq - b.seq);
  options.onStatus?.(rows[0]?.status);
  if (watch) options.onWatched?.(rows[0]?.watched !== false);
  return events.map((event, i) => {
    const row = rows[i] as Written;
    return { ...event, seq: row.seq, at: new Date(row.created_at) };
  });
}

/** A run id retention dropped is RunRetiredError (its last gnl.retention_log row says how it ended, when and by whom). */
async function assertNotRetired(db: SqlQuery, runId: string): Promise<void> {
  const [row] = await db.query<{ status: string; dropped_at: Date | string; dropped_by: string }>(
    'select status, dropped_at, dropped_by from gnl.retention_log where run_id = $1::text order by dropped_at desc, id desc limit 1',
    [runId],
  );
  if (row) throw new RunRetiredError({ runId, endedAs: row.status, droppedAt: new Date(row.dropped_at), droppedBy: row.dropped_by });
}

/** Which check refused a conditional append: the run moved (RunMovedError) or, if it did not, the caller's other checks. */
async function assertNotMoved(db: SqlQuery, runId: string, expectedLastSeq: number): Promise<void> {
  const [run] = await db.query<{ last_seq: number }>('select last_seq from gnl.runs where run_id = $1::text', [runId]);
  if (run && run.last_seq !== expectedLastSeq) throw new RunMovedError({ runId, expectedLastSeq, lastSeq: run.last_seq });
}

export function encodePending(pending: PendingItem[], runId: string, secrets: JournalSecrets, sealed: boolean): string {
  const json = JSON.stringify(encodeJson(pending));
  return sealed || (!secrets.sealsWhole(runId) && !secrets.mightHold(json)) ? json : JSON.stringify(encodeJson(secrets.sealPending(pending, runId)));
}

/** The last sequence number an append or create wrote (for the after-commit notification). */
export function lastSeqOf(recorded: readonly RecordedEvent[]): number {
  return recorded.reduce((max, event) => Math.max(max, event.seq), 0);
}

type LoadedRow = { seq: number | null; type: string | null; payload: unknown; created_at: Date | string | null; hash: string | null; answer: unknown };

/**
 * The events after `afterSeq`, and in the same query the bodies they name: rows with a `hash` and no
 * seq. The hashes are found through run_events_blobs_idx (a run that names none pays one empty index
 * probe) and the bodies by primary key: `= any(array(…))` keeps the plan an index lookup (an `in`
 * subquery may become a hash join over the whole table). A page (`limit`) names its own events' only.
 */
export const LOAD = {
  all: `(select seq, type, payload, created_at, null::text as hash, answer from gnl.run_events where run_id = $1::text and seq > $2::int order by seq)
    union all
    (select null, null, p.body, null, p.hash, null::json from gnl.payloads p where p.hash = any(array(
      select unnest(blobs) from gnl.run_events where run_id = $1::text and seq > $2::int and blobs is not null)))`,
  /**
   * What a completed run's answer needs (completed-answer.ts): its start, migrations and resumes (its input
   * and trace), its last model step and its run-complete; every event of a run that is not completed.
   * One statement either way, and the run's other events never leave the server.
   */
  answer: `with wanted as (
      select seq, type, payload, created_at, blobs, answer from gnl.run_events e
      where e.run_id = $1::text and seq > $2::int and (
        (select status from gnl.runs where run_id = $1::text) is distinct from 'completed'
        or e.type in ('run-start', 'run-migrate', 'run-resume', 'run-complete')
        or e.seq = (select max(seq) from gnl.run_events where run_id = $1::text and type = 'model-step')))
    (select seq, type, payload, created_at, null::text as hash, answer from wanted order by seq)
    union all
    (select null, null, p.body, null, p.hash, null::json from gnl.payloads p where p.hash = any(array(
      select unnest(blobs) from wanted where blobs is not null)))`,
  page: `(select seq, type, payload, created_at, null::text as hash, answer from gnl.run_events where run_id = $1::text and seq > $2::int order by seq limit $3::int)
    union all
    (select null, null, p.body, null, p.hash, null::json from gnl.payloads p where p.hash = any(array(
      select unnest(blobs) from (select blobs from gnl.run_events where run_id = $1::text and seq > $2::int order by seq limit $3::int) page)))`,
};

export async function readEvents(
  db: SqlQuery,
  runId: string,
  afterSeq: number,
  limit: number | undefined,
  secrets?: JournalSecrets,
  /** 'answer': of a completed run, only the events its answer needs (LOAD.answer). */
  only?: 'answer',
): Promise<RecordedEvent[]> {
  const opener = secretsOrDefault(secrets);
  await ensureRunKeys(db, opener, [runId]);
  const rows = await db.query<LoadedRow>(
    only === 'answer' ? LOAD.answer : limit === undefined ? LOAD.all : LOAD.page,
    limit === undefined || only === 'answer' ? [runId, afterSeq] : [runId, afterSeq, limit],
  );
  const bodies = new Map<string, unknown>();
  const events: LoadedRow[] = [];
  for (const row of rows) {
    if (row.hash !== null) bodies.set(row.hash, row.payload);
    else events.push(row);
  }
  // Each branch of the union keeps its order; which comes first is the server's choice.
  if (events.some((row, i) => i > 0 && (row.seq as number) < ((events[i - 1] as LoadedRow).seq as number)))
    events.sort((a, b) => (a.seq as number) - (b.seq as number));
  return events.map((row) => {
    const where = `run "${runId}" event #${row.seq} (${row.type})`;
    // A row's payload is the driver's fresh parse, decoded in place; one with bodies resolved into it may share them with other events.
    const decoded =
      bodies.size === 0 ? decodeOwnedJson<object>(row.payload) : decodeJson<object>(resolveRefs(row.payload, bodies, (hash) => missingBody(hash, where)));
    // A run-complete's answer kept apart (the `answer` column: encodeStored's answerApart) goes back in its place.
    if (row.answer !== null && row.answer !== undefined) (decoded as { answer?: unknown }).answer = decodeOwnedJson(row.answer);
    const event = { ...decoded, type: row.type, seq: row.seq, at: new Date(row.created_at as Date | string) } as RecordedEvent;
    return opener.openEvent(event, runId, where);
  });
}

/** A stored tree (a run row's input) with its references resolved: one query, only when it names any. */
export async function resolveStored(db: SqlQuery, stored: unknown, where: string): Promise<unknown> {
  const hashes = refsIn(stored);
  if (hashes.length === 0) return stored;
  const rows = await db.query<{ hash: string; body: unknown }>(
    'select hash, body from gnl.payloads where hash in (select jsonb_array_elements_text($1::text::jsonb))',
    [JSON.stringify(hashes)],
  );
  return resolveRefs(stored, new Map(rows.map((row) => [row.hash, row.body])), (hash) => missingBody(hash, where));
}

function missingBody(hash: string, where: string): never {
  throw new JournalDataError(`The journal is inconsistent: ${where} names a stored value (sha256 ${hash}) that gnl.payloads does not hold.`);
}
