/**
 * The streaming guide's route handler (docs/streaming.md): a Next.js-style `POST(request)` that answers
 * `useChat` with streamDurable. The guide's code blocks are the #region parts of this file.
 */
import {
  convertToModelMessages,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  type LanguageModel,
  type ToolSet,
  type UIMessage,
} from 'ai';
import { z } from 'zod';
import { answerMessageId, followRunStream, type LiveJournal, streamDurable } from '@gnldev/durable';

// #region route
const chatRequest = z.object({
  id: z.string().min(1).max(200),
  messages: z
    .array(
      z
        .object({ id: z.string().min(1), role: z.enum(['user', 'assistant', 'system']) })
        .passthrough(),
    )
    .min(1),
});

export function chatRoute({
  journal,
  model,
  tools,
}: {
  journal: LiveJournal;
  model: LanguageModel;
  tools: ToolSet;
}) {
  return async function POST(request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return Response.json({ error: 'The request body is not JSON.' }, { status: 400 });
    }
    const parsed = chatRequest.safeParse(body);
    if (!parsed.success) return Response.json({ error: parsed.error.issues }, { status: 400 });
    const { id, messages } = parsed.data;
    const uiMessages = messages as unknown as UIMessage[];
    // The job is this turn of this chat: the same request sent again (a retry, a reload) replays it.
    const runId = turnRunId(id, messages.at(-1)?.id as string);
    if ((await journal.getRun(runId))?.status === 'completed') {
      // Answered already: replay it from the run's stream log. Sent again right at its end, the turn's
      // invocation may still hold the run (streamDurable would answer RunBusyError); the log needs no hold.
      return createUIMessageStreamResponse({
        stream: followRunStream({ journal, runId, from: 'replay', signal: request.signal }),
      });
    }
    const result = streamDurable({
      runId,
      journal,
      model,
      tools,
      messages: await convertToModelMessages(uiMessages),
      conversationId: id,
      // Written to the run's stream log too, for a client that reconnects (the GET route below).
      resumable: true,
      // No abortSignal: a browser that leaves does not stop the run; `durable` carries it to its end.
    });
    // The same message id as the log's, so a replay rebuilds this message instead of adding one.
    return result.toUIMessageStreamResponse({ generateMessageId: () => answerMessageId(runId) });
  };
}

export const turnRunId = (chatId: string, messageId: string) => `chat:${chatId}:${messageId}`;
// #endregion

// #region resume
/**
 * useChat's reconnect (`resume: true`, or after a dropped connection): GET
 * /api/chat/<id>/stream?message=<the last user message's id> (set by the client's
 * prepareReconnectToStreamRequest). The turn's answer from its start, then live: what the process
 * that runs it writes to the journal's stream log, whichever process that is.
 */
export function resumeRoute({ journal }: { journal: LiveJournal }) {
  return async function GET(request: Request, chatId: string): Promise<Response> {
    const messageId = new URL(request.url).searchParams.get('message');
    if (!messageId)
      return Response.json({ error: 'Say which turn: ?message=<id>.' }, { status: 400 });
    const runId = turnRunId(chatId, messageId);
    const run = await journal.getRun(runId);
    if (!run) return new Response(null, { status: 204 }); // nothing to resume
    return createUIMessageStreamResponse({
      // A run still running whose stream is finished is about to stream again (a resume): wait for that one.
      stream: followRunStream({
        journal,
        runId,
        from: run.status === 'running' ? 'next' : 'replay',
        signal: request.signal,
      }),
    });
  };
}
// #endregion

// #region transport
/** The page's transport for `useChat({ id, resume: true, transport })`: a reconnect names the turn it follows. */
export function chatTransport(lastUserMessageId: () => string | undefined) {
  return new DefaultChatTransport({
    api: '/api/chat',
    prepareReconnectToStreamRequest: ({ id }) => ({
      api: `/api/chat/${encodeURIComponent(id)}/stream?message=${encodeURIComponent(lastUserMessageId() ?? '')}`,
    }),
  });
}
// #endregion
