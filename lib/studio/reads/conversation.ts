/**
 * A conversation as the Studio shows it: its turns (one run per user turn, each started with the
 * conversation's id in its input), oldest first. Server-only.
 *
 * One statement on runs_conversation_idx (migration 0011: `(input->>'conversationId'), created_at,
 * run_id` where `input ? 'conversationId'`), walked backwards from the newest turn, so a conversation
 * of any length costs at most MAX_TURNS index entries. Each turn's run input holds the whole
 * conversation so far, so the statement takes from it only the last user message, and from the
 * journal only the event that ended the run (its answer), never every event.
 *
 * What the statement reads is the journal's stored form: a value json-codec tagged (a Date, bytes), a
 * sealed secret or a big value stored apart is an object with a `$gnl` key there. Such a turn is read
 * again through the journal (getRun, one event), which decodes, opens and resolves it; everything shown
 * then goes through jsonSafe, so a secret is redacted like everywhere else in the Studio.
 */
import 'server-only';
import { type SQL, sql } from 'drizzle-orm';
import { type PendingItem, type RecordedEvent, RunState, type RunStatus, type RunSummary } from '@/lib/durable';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';
import { jsonSafe } from './wire';

/** The most turns a conversation page shows: the newest ones (the one waiting is always among them). */
export const MAX_TURNS = 200;

/** What a turn's run waits for, as the thread names it (the inbox decides it). */
export interface ConversationWait {
  kind: PendingItem['kind'];
  toolName: string;
  toolCallId: string;
  input: unknown;
  /** Decided (approved, rejected, settled) and waiting for the run to resume. */
  decided?: string;
}

/** What came of a turn: the run's final text, what it waits for, why it failed, or nothing yet. */
export type TurnAnswer = { kind: 'text'; text: string } | { kind: 'waiting'; waits: ConversationWait[] } | { kind: 'failed'; error: string } | { kind: 'none' };

export interface ConversationTurn {
  /** 1-based position in the whole conversation. */
  turn: number;
  runId: string;
  status: RunStatus;
  createdAt: string;
  /** The text parts of the turn's last user message (its new message), joined by newlines; null when it has none. */
  userText: string | null;
  /** Parts of that message that are not text (images, files). */
  otherParts: number;
  answer: TurnAnswer;
  stepCount: number;
}

export interface Conversation {
  conversationId: string;
  /** Oldest first. */
  turns: ConversationTurn[];
  /** Turns before the first one shown (0 when the conversation is shown whole). */
  earlierTurns: number;
}

/** The statement's rows. */
interface TurnRow {
  run_id: string;
  status: string;
  step_count: number;
  pending: unknown;
  created_at: Date | string;
  /** The last element of `input.messages` whose role is user (null: none, or messages is not an array as stored). */
  user_message: unknown;
  /** `input.messages` stored as something other than an array (a value stored apart), else null. */
  messages_other: unknown;
  /** `input.prompt`, when the run has no messages array. */
  prompt: unknown;
  /** The run-complete or run-fail that ended a finished run: { type, seq, payload } (a run-complete's answer left out: only its text is read). */
  ending: { type: 'run-complete' | 'run-fail'; seq: number; payload: Record<string, unknown> } | null;
}

const inConversation = (conversationId: string) => sql`r.input ? 'conversationId' and (r.input->>'conversationId') = ${conversationId}`;

/** The newest `limit` turns and one more (which says there are earlier ones), newest first. */
export function conversationTurnsStatement(conversationId: string, limit: number): SQL {
  const messages = sql`r.input->'messages'`;
  return sql`select r.run_id, r.status, r.step_count, r.pending, r.created_at,
      (select m.value from jsonb_array_elements(case when jsonb_typeof(${messages}) = 'array' then ${messages} else '[]'::jsonb end)
        with ordinality as m(value, n) where m.value->>'role' = 'user' order by m.n desc limit 1) as user_message,
      case when jsonb_typeof(${messages}) not in ('array', 'null') then ${messages} end as messages_other,
      case when jsonb_typeof(${messages}) is distinct from 'array' then r.input->'prompt' end as prompt,
      case when r.status in ('completed', 'failed') then (select jsonb_build_object('type', e.type, 'seq', e.seq, 'payload', e.payload - 'answer')
        from gnl.run_events e where e.run_id = r.run_id and e.type in ('run-complete', 'run-fail') order by e.seq desc limit 1) end as ending
    from gnl.runs r
    where ${inConversation(conversationId)}
    order by (r.input->>'conversationId') desc, r.created_at desc, r.run_id desc
    limit ${limit + 1}`;
}

/** How many turns the conversation has, and the position of `runId` among them (0 when it is none of them). */
export function conversationTurnStatement(conversationId: string, runId: string): SQL {
  return sql`select count(*)::int as turns,
      (count(*) filter (where (r.created_at, r.run_id) <= (select t.created_at, t.run_id from gnl.runs t
        where t.run_id = ${runId} and (t.input->>'conversationId') = ${conversationId})))::int as turn
    from gnl.runs r where ${inConversation(conversationId)}`;
}

type StorageLike = Pick<Storage, 'database' | 'runs'>;

async function rowsOf<T>(storage: StorageLike, statement: SQL): Promise<T[]> {
  const result = (await (await storage.database()).execute(statement)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Written by GNL's codec, its secrets or its big-value store: only the journal's own reader can say what it holds. */
const stored = (value: unknown) => value !== null && value !== undefined && JSON.stringify(value).includes('"$gnl');

/** The text parts of a user message, and how many parts are not text. */
export function userMessageText(message: unknown): { text: string | null; otherParts: number } {
  if (!isRecord(message)) return { text: null, otherParts: 0 };
  const { content } = message;
  if (typeof content === 'string') return { text: content, otherParts: 0 };
  if (!Array.isArray(content)) return { text: null, otherParts: 0 };
  const texts = content.filter((part) => isRecord(part) && part.type === 'text' && typeof part.text === 'string').map((part) => part.text as string);
  return { text: texts.length > 0 ? texts.join('\n') : null, otherParts: content.length - texts.length };
}

/** The user's message of a turn, from its start input: the last user message of `messages` (or of a `prompt` given as messages), or a string prompt. */
export function turnUserText(input: Pick<RunSummary['input'], 'messages' | 'prompt'>): { text: string | null; otherParts: number } {
  const source = Array.isArray(input.messages) ? input.messages : input.prompt;
  if (typeof source === 'string') return { text: source, otherParts: 0 };
  if (!Array.isArray(source)) return { text: null, otherParts: 0 };
  return userMessageText(source.findLast((message) => isRecord(message) && message.role === 'user'));
}

function answerOf(status: RunStatus, pending: readonly PendingItem[], ending: TurnRow['ending']): TurnAnswer {
  if (pending.length > 0) {
    return {
      kind: 'waiting',
      waits: pending.map((item) => ({
        kind: item.kind,
        toolName: item.toolName,
        toolCallId: item.toolCallId,
        input: item.input,
        ...(item.decision ? { decided: item.decision.outcome } : {}),
      })),
    };
  }
  // The ending event read through the projection (the one fold of events): its text or its error.
  const ended = new RunState(ending ? [{ ...ending.payload, type: ending.type, seq: ending.seq, at: new Date(0) } as RecordedEvent] : []);
  if (status === 'completed' && typeof ended.completedText === 'string') return { kind: 'text', text: ended.completedText };
  if (status === 'failed' && ended.failure) return { kind: 'failed', error: String(ended.failure.message) };
  return { kind: 'none' };
}

async function toTurn(storage: StorageLike, row: TurnRow, turn: number): Promise<ConversationTurn> {
  let user = row.user_message !== null ? userMessageText(row.user_message) : turnUserText({ messages: undefined, prompt: row.prompt });
  let pending = row.pending as PendingItem[];
  if (stored(row.user_message) || stored(row.messages_other) || stored(row.prompt) || stored(row.pending)) {
    const run = await storage.runs.getRun(row.run_id);
    if (run) {
      user = turnUserText(run.input);
      pending = run.pending;
    }
  }
  let ending = row.ending;
  if (ending && stored(ending.payload)) {
    const [event] = await storage.runs.events(row.run_id, { afterSeq: ending.seq - 1, limit: 1 });
    if (event) ending = { ...ending, payload: event as unknown as Record<string, unknown> };
  }
  const status = row.status as RunStatus;
  return jsonSafe({
    turn,
    runId: row.run_id,
    status,
    createdAt: new Date(row.created_at).toISOString(),
    userText: user.text,
    otherParts: user.otherParts,
    answer: answerOf(status, pending, ending),
    stepCount: row.step_count,
  });
}

/**
 * The conversation's newest `limit` turns (default MAX_TURNS), oldest first; undefined when no run is
 * a turn of it. On the storage given (the Studio's: loadConversation).
 */
export async function readConversation(storage: StorageLike, conversationId: string, options: { limit?: number } = {}): Promise<Conversation | undefined> {
  const limit = Math.min(Math.max(options.limit ?? MAX_TURNS, 1), MAX_TURNS);
  const rows = await rowsOf<TurnRow>(storage, conversationTurnsStatement(conversationId, limit));
  if (rows.length === 0) return undefined;
  const shown = rows.slice(0, limit).reverse();
  const earlierTurns = rows.length > limit ? ((await conversationTurnOf(storage, conversationId, shown[0]?.run_id ?? ''))?.turn ?? 1) - 1 : 0;
  return { conversationId, turns: await Promise.all(shown.map((row, i) => toTurn(storage, row, earlierTurns + i + 1))), earlierTurns };
}

/** Where a run stands in its conversation: turn `turn` of `turns`. Undefined when the run is no turn of it. */
export async function conversationTurnOf(
  storage: StorageLike,
  conversationId: string,
  runId: string,
): Promise<{ conversationId: string; turn: number; turns: number } | undefined> {
  const [row] = await rowsOf<{ turns: number; turn: number }>(storage, conversationTurnStatement(conversationId, runId));
  return row && row.turn > 0 ? { conversationId, turn: row.turn, turns: row.turns } : undefined;
}

/** The Studio's conversation page: readConversation on the journal the environment names. */
export function loadConversation(conversationId: string): Promise<Conversation | undefined> {
  return readConversation(storageFromEnv(), conversationId);
}

/** The run page's "Turn n of conversation …": conversationTurnOf on the journal the environment names. */
export function loadConversationTurn(conversationId: string, runId: string): Promise<{ conversationId: string; turn: number; turns: number } | undefined> {
  return conversationTurnOf(storageFromEnv(), conversationId, runId);
}
