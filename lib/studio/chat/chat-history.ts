/**
 * A conversation as the chat shows it and as its next turn is asked: its turns (one run each, oldest
 * first, found by the conversationId their start recorded), each turn's user message (from the run's
 * input) and its answer (the UI message its newest invocation streamed, rebuilt from the stream log;
 * a run without a log answers with its recorded text).
 */
import 'server-only';
import { convertToModelMessages, type ModelMessage, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { sql } from 'drizzle-orm';
import { answerMessageId, type PendingItem, RunState, type RunStatus, type RunSummary, type StreamBatch } from '@/lib/durable';
import { storageFromEnv, type Storage } from '@/lib/durable/storage';
import { turnUserText } from '../reads/conversation';
import { messageIdOfTurn } from './chat-request';

/** Most turns a conversation shows and sends to the model. */
export const MAX_TURNS = 200;

export interface ChatTurn {
  runId: string;
  status: RunStatus;
  createdAt: Date;
  pending: PendingItem[];
  user: UIMessage;
  /** What the turn answered so far (its newest stream), if anything. */
  answer?: UIMessage;
}

export async function conversationTurns(conversationId: string, options: { storage?: Storage; answers?: boolean } = {}): Promise<ChatTurn[]> {
  const storage = options.storage ?? storageFromEnv();
  const db = await storage.database();
  // The newest MAX_TURNS turns, oldest first.
  const result = await db.execute(
    sql`select run_id from gnl.runs where input ? 'conversationId' and input->>'conversationId' = ${conversationId} order by created_at desc, run_id desc limit ${MAX_TURNS}`,
  );
  const rows = ((Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { run_id: string }[]).reverse();
  const turns = await Promise.all(
    rows.map(async ({ run_id: runId }): Promise<ChatTurn | undefined> => {
      const run = await storage.runs.getRun(runId);
      if (!run) return undefined;
      const answer = options.answers === false ? undefined : await answerOf(storage, runId);
      return {
        runId,
        status: run.status,
        createdAt: run.createdAt,
        pending: run.pending,
        user: userMessageOf(runId, run.input),
        ...(answer ? { answer } : {}),
      };
    }),
  );
  return turns.filter((turn): turn is ChatTurn => turn !== undefined);
}

/** The conversation as UI messages, oldest first (the chat page's initial messages). */
export function uiMessagesOf(turns: readonly ChatTurn[]): UIMessage[] {
  return turns.flatMap((turn) => (turn.answer ? [turn.user, turn.answer] : [turn.user]));
}

/**
 * The model messages of the next turn: the conversation so far and the new message. A turn that did not
 * complete keeps its text and the tool calls that have a result (a call without one cannot be sent back).
 */
export async function nextTurnMessages(turns: readonly ChatTurn[], message: UIMessage): Promise<ModelMessage[]> {
  const history = turns.flatMap((turn) => {
    if (!turn.answer) return [turn.user];
    const parts = turn.status === 'completed' ? turn.answer.parts : turn.answer.parts.filter(settledPart);
    return parts.length > 0 ? [turn.user, { ...turn.answer, parts }] : [turn.user];
  });
  return convertToModelMessages([...history, message]);
}

function settledPart(part: UIMessage['parts'][number]): boolean {
  if (part.type === 'text' || part.type === 'step-start') return true;
  if (!part.type.startsWith('tool-') && part.type !== 'dynamic-tool') return false;
  const state = (part as { state?: string }).state;
  return state === 'output-available' || state === 'output-error' || state === 'output-denied';
}

/** The turn's user message (conversation.ts reads it the same way for the thread page), as a UI message. */
function userMessageOf(runId: string, input: RunSummary['input']): UIMessage {
  return { id: messageIdOfTurn(runId) ?? `user:${runId}`, role: 'user', parts: [{ type: 'text', text: turnUserText(input).text ?? '' }] };
}

/** The newest invocation's stream as one UI message; the recorded text when the run has no stream. */
async function answerOf(storage: Storage, runId: string): Promise<UIMessage | undefined> {
  const batches: StreamBatch[] = [];
  for (;;) {
    const page = await storage.runs.streamBatches(runId, { afterId: batches.at(-1)?.id ?? 0 });
    batches.push(...page);
    if (page.length < 1000) break;
  }
  const newest = batches.at(-1)?.invocation;
  if (newest !== undefined) {
    const chunks = batches.filter((batch) => batch.invocation === newest).flatMap((batch) => batch.chunks as UIMessageChunk[]);
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    let message: UIMessage | undefined;
    for await (const built of readUIMessageStream({ stream, onError: () => undefined })) message = built;
    if (message) return message;
  }
  const text = new RunState(await storage.runs.events(runId)).completedText;
  return text ? { id: answerMessageId(runId), role: 'assistant', parts: [{ type: 'text', text }] } : undefined;
}

export interface ConversationListing {
  id: string;
  turns: number;
  lastAt: Date;
  /** The first turn's user message, for a title. */
  firstMessage: string;
}

/** How many of the newest turns the list reads (the conversations they belong to are listed). */
const RECENT_TURNS_READ = 1000;

/** The conversations with the newest turns, newest first (the chat page's list); a title from the oldest turn read. */
export async function recentConversations(limit = 30, storage: Storage = storageFromEnv()): Promise<ConversationListing[]> {
  const db = await storage.database();
  const result = await db.execute(
    sql`select input->>'conversationId' as id, count(*)::int as turns, max(created_at) as last_at, min(run_id) filter (where created_at = first_at) as first_run
        from (select input, created_at, run_id, min(created_at) over (partition by input->>'conversationId') as first_at
              from (select input, created_at, run_id from gnl.runs where input ? 'conversationId'
                    order by created_at desc limit ${RECENT_TURNS_READ}) newest) t
        group by 1 order by max(created_at) desc limit ${limit}`,
  );
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as {
    id: string;
    turns: number;
    last_at: Date | string;
    first_run: string;
  }[];
  const listings: ConversationListing[] = [];
  for (const row of rows) {
    const first = await storage.runs.getRun(row.first_run);
    listings.push({
      id: row.id,
      turns: Number(row.turns),
      lastAt: new Date(row.last_at),
      firstMessage: first ? textOf(userMessageOf(first.runId, first.input)) : '',
    });
  }
  return listings;
}

function textOf(message: UIMessage): string {
  return message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}
