/**
 * The streaming guide's route handler (docs/streaming.md): a Next.js-style `POST(request)` that answers
 * `useChat` with streamDurable. The guide's code blocks are the #region parts of this file.
 */
import { convertToModelMessages, type LanguageModel, type ToolSet, type UIMessage } from 'ai';
import { z } from 'zod';
import { type Journal, streamDurable } from '@gnldev/durable';

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
  journal: Journal;
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
    const result = streamDurable({
      // The job is this turn of this chat: the same request sent again (a retry, a reload) replays it.
      runId: `chat:${id}:${messages.at(-1)?.id}`,
      journal,
      model,
      tools,
      messages: await convertToModelMessages(uiMessages),
      // No abortSignal: a browser that leaves does not stop the run; `durable` carries it to its end.
    });
    return result.toUIMessageStreamResponse();
  };
}
// #endregion
