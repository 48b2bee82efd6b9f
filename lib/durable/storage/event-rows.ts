/**
 * The journal's hot path in SQL: create a run, append events, read them back. Each is ONE prepared
 * statement: one round trip and, outside a decision's transaction, one commit.
 *
 * An append bumps the run's last_seq (taking the row lock that orders a run's writers), inserts the
 * events numbered from the old value, and updates the summary the listings read. A writer with a
 * fence (Postgres) also requires, in the same WHERE, that the run's `holder` is still its token (no one
 * took the run over, even from a session that reuses its pid) and that its side session still holds
 * the run's advisory lock (the session did not die): otherwise no row matches and nothing is written.
 * A canceled run stays canceled whatever a writer appends, and the append returns the status, so a
 * writer learns of a cancel from anywhere on its next append, at no extra round trip.
 */
import {
  encodeEvent,
  encodeJson,
  decodeJson,
  type JournalEvent,
  type PendingItem,
  type RecordedEvent,
  type RunInput,
  summaryChange,
  HoldLostError,
  JournalDataError,
  RunMovedError,
  JournalSecrets,
  type JournalSecretsOptions,
} from '../internal';
import { NOTIFY_CHANNEL } from './notifications';
import type { SqlQuery } from './sql-driver';

type Written = { seq: number; created_at: Date | string; last_seq: number; status?: string };

/**
 * The append statement. `notify`: NOTIFY inside the statement (delivered at its commit).
 * JSON goes in as text (`$n::text::jsonb`): a parameter typed jsonb would be JSON-encoded again by postgres.js.
 * `$11`, when set, is the last_seq the writer loaded: a run that moved since (a decision, cancel or resume
 * request committed under the row lock) matches no row and nothing is written. Read committed re-checks
 * the WHERE on the row version it waited for, so the check and the write are one atomic step.
 */
export function appendStatement(notify: boolean): string {
  return `with r as (
      update gnl.runs set
        last_seq = last_seq + $2::int,
        step_count = step_count + $3::int,
        status = case when status = 'canceled' then status else coalesce($4::text, status) end,
        pending = coalesce($5::text::jsonb, pending),
        updated_at = now()
      where run_id = $1::text and ($6::text is null or holder = $6::text) and ($11::int is null or last_seq = $11::int)
        and ($8::int is null or exists (select 1 from pg_locks where locktype = 'advisory' and granted
              and pid = $8::int and classid = $9::bigint::oid and objid = $10::bigint::oid and objsubid = 1))
      returning last_seq - $2::int as base, last_seq, status),
    e as (
      insert into gnl.run_events (run_id, seq, type, payload)
      select $1::text, r.base + x.ord, x.value->>'type', x.value->'payload'
      from r, jsonb_array_elements($7::text::jsonb) with ordinality as x(value, ord)
      returning seq, created_at)${notifyClause(notify)}
    select e.seq, e.created_at, r.last_seq, r.status from e, r${notify ? ', n' : ''}`;
}

const CREATE_STATEMENT = (notify: boolean) => `with r as (
      insert into gnl.runs (run_id, status, last_seq, step_count, input, pending, holder)
      values ($1::text, 'running', 1, 0, $2::text::jsonb, '[]'::jsonb, $4::text)
      returning run_id, last_seq),
    e as (
      insert into gnl.run_events (run_id, seq, type, payload)
      select run_id, 1, 'run-start', $3::text::jsonb->'payload' from r
      returning seq, created_at)${notifyClause(notify)}
    select e.seq, e.created_at, r.last_seq from e, r${notify ? ', n' : ''}`;

// A CTE with a volatile function is evaluated once, and only because the final select reads it.
function notifyClause(notify: boolean): string {
  return notify ? `,\n    n as (select pg_notify('${NOTIFY_CHANNEL}', r.last_seq || ':' || $1::text) from r)` : '';
}

const APPEND = { plain: appendStatement(false), notifying: appendStatement(true) };
const CREATE = { plain: CREATE_STATEMENT(false), notifying: CREATE_STATEMENT(true) };

/** What an append checks inside its statement to be sure its writer still holds the run. */
export interface Fence {
  /** The token written into the run's `holder` when this writer took it. */
  holder: string;
  /** The advisory lock that must still be granted to the writer's side session (backend pid, lock ids). */
  lock: { pid: number; classid: string; objid: string };
}

export interface WriteOptions {
  fence?: Fence;
  /** NOTIFY inside the statement (PGlite); otherwise the caller announces after commit. */
  notifyInStatement: boolean;
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

/** The event as stored, encoded: secrets sealed, only when the encoded text may hold one (the hot path pays one scan). */
function encodeStored(event: JournalEvent, runId: string, secrets: JournalSecrets): string {
  const json = encodeEvent(event);
  if (!secrets.mightHold(json)) return json;
  const sealed = secrets.sealEvent(event, runId);
  return sealed === event ? json : encodeEvent(sealed);
}

export async function createRun(db: SqlQuery, runId: string, input: RunInput, options: WriteOptions): Promise<RecordedEvent> {
  const event = { type: 'run-start' as const, input };
  const secrets = secretsOrDefault(options.secrets);
  const encoded = encodeStored(event, runId, secrets); // refused over the size limit; the run row keeps the input too (for listings)
  const [row] = await db.query<Written>(options.notifyInStatement ? CREATE.notifying : CREATE.plain, [
    runId,
    JSON.stringify(encodeJson(secrets.mightHold(encoded) ? secrets.sealRunInput(input, runId) : input)),
    encoded,
    options.fence?.holder ?? null,
  ]);
  if (!row) throw new JournalDataError(`Run "${runId}" could not be created.`);
  return { ...event, seq: row.seq, at: new Date(row.created_at) };
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
  // Encode first: data the journal cannot hold (a cycle, over MAX_EVENT_BYTES) is refused before anything is written.
  const encoded = `[${events.map((event) => encodeStored(event, runId, secrets)).join(',')}]`;
  const change = summaryChange(events);
  const pending = options.pending ?? change.pending;
  const pendingJson = pending ? encodePending(pending, runId, secrets, options.pendingSealed === true) : null;
  const rows = await db.query<Written>(options.notifyInStatement ? APPEND.notifying : APPEND.plain, [
    runId,
    events.length,
    change.stepDelta,
    change.status ?? null,
    pendingJson,
    options.fence?.holder ?? null,
    encoded,
    options.fence?.lock.pid ?? null,
    options.fence?.lock.classid ?? null,
    options.fence?.lock.objid ?? null,
    options.expectedLastSeq ?? null,
  ]);
  if (rows.length !== events.length) {
    if (options.expectedLastSeq !== undefined) await assertNotMoved(db, runId, options.expectedLastSeq);
    if (options.fence) throw new HoldLostError({ runId });
    throw new JournalDataError(`Run "${runId}" does not exist; nothing was appended.`);
  }
  rows.sort((a, b) => a.seq - b.seq);
  options.onStatus?.(rows[0]?.status);
  return events.map((event, i) => {
    const row = rows[i] as Written;
    return { ...event, seq: row.seq, at: new Date(row.created_at) };
  });
}

/** Which check refused a conditional append: the run moved (RunMovedError) or, if it did not, the caller's other checks. */
async function assertNotMoved(db: SqlQuery, runId: string, expectedLastSeq: number): Promise<void> {
  const [run] = await db.query<{ last_seq: number }>('select last_seq from gnl.runs where run_id = $1::text', [runId]);
  if (run && run.last_seq !== expectedLastSeq) throw new RunMovedError({ runId, expectedLastSeq, lastSeq: run.last_seq });
}

function encodePending(pending: PendingItem[], runId: string, secrets: JournalSecrets, sealed: boolean): string {
  const json = JSON.stringify(encodeJson(pending));
  return sealed || !secrets.mightHold(json) ? json : JSON.stringify(encodeJson(secrets.sealPending(pending, runId)));
}

/** The last sequence number an append or create wrote (for the after-commit notification). */
export function lastSeqOf(recorded: readonly RecordedEvent[]): number {
  return recorded.reduce((max, event) => Math.max(max, event.seq), 0);
}

export async function readEvents(db: SqlQuery, runId: string, afterSeq: number, limit: number | undefined, secrets?: JournalSecrets): Promise<RecordedEvent[]> {
  const opener = secretsOrDefault(secrets);
  const rows = await db.query<{ seq: number; type: string; payload: unknown; created_at: Date | string }>(
    limit === undefined
      ? 'select seq, type, payload, created_at from gnl.run_events where run_id = $1::text and seq > $2::int order by seq'
      : 'select seq, type, payload, created_at from gnl.run_events where run_id = $1::text and seq > $2::int order by seq limit $3::int',
    limit === undefined ? [runId, afterSeq] : [runId, afterSeq, limit],
  );
  return rows.map((row) => {
    const event = { ...decodeJson<object>(row.payload), type: row.type, seq: row.seq, at: new Date(row.created_at) } as RecordedEvent;
    return opener.openEvent(event, runId, `run "${runId}" event #${row.seq} (${row.type})`);
  });
}
