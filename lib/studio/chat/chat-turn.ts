/**
 * One user turn of a Studio chat: a run of the support agent whose input is the conversation so far
 * (from the journal) and the new message, recorded with its conversationId, started on this server's
 * executor. The run id is the turn's (turnRunId): the same message sent again is the same run, not a
 * second one. A conversation takes one turn at a time: while its last turn is running or waits for a
 * person, a new message is refused (ChatBusyError) and the chat says what it waits for.
 */
import 'server-only';
import type { UIMessage } from 'ai';
import { GnlError } from '@/lib/durable';
import { getExecutor } from '@/lib/executor';
import { type ChatTurn, conversationTurns, nextTurnMessages } from './chat-history';
import { type ChatRequest, turnRunId } from './chat-request';

/** The agent every Studio chat talks to. */
export const CHAT_AGENT = 'support';

const SETTLED = new Set(['completed', 'failed', 'canceled']);

export class ChatBusyError extends GnlError {
  readonly status: string;
  constructor(turn: ChatTurn) {
    super(
      turn.status === 'running'
        ? 'The previous answer is still being written; send the next message when it is done.'
        : `The previous turn waits for a person (${turn.status.replace('waiting-', 'waiting for ')}): decide it in the inbox first.`,
    );
    this.name = 'ChatBusyError';
    this.status = turn.status;
  }
  static override isInstance = (error: unknown): error is ChatBusyError => GnlError.isInstance(error) && error.name === 'ChatBusyError';
}

/** `by`: the operator who sent the message, recorded as the run's starter. */
export async function startChatTurn(request: ChatRequest, by: string): Promise<{ runId: string; created: boolean }> {
  const runId = turnRunId(request.id, request.message.id);
  const turns = await conversationTurns(request.id);
  const existing = turns.find((turn) => turn.runId === runId);
  if (existing) return { runId, created: false }; // the same message again: its run, replayed or followed
  const last = turns.at(-1);
  if (last && !SETTLED.has(last.status)) throw new ChatBusyError(last);
  const messages = await nextTurnMessages(turns, request.message as UIMessage);
  const started = await getExecutor().startRun({ agent: CHAT_AGENT, runId, input: { messages, conversationId: request.id }, by });
  return { runId, created: started.created };
}
