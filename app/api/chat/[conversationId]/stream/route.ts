import { createUIMessageStreamResponse } from 'ai';
import { operatorOrRefusal, sessionStillOn } from '@/lib/studio/auth/session';
import { conversationTurns } from '@/lib/studio/chat/chat-history';
import { conversationIdSchema } from '@/lib/studio/chat/chat-request';
import { followAnswer } from '@/lib/studio/live/run-stream';

/**
 * useChat's reconnect (`resume`): the last turn's answer, replayed from its start and followed live.
 * While the turn runs, a finished stream is an earlier invocation's (the run waited, then resumed): the
 * reader waits for the next one. 204 when the conversation has no turn yet.
 */
export async function GET(request: Request, { params }: { params: Promise<{ conversationId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const parsed = conversationIdSchema.safeParse((await params).conversationId);
  if (!parsed.success) return Response.json({ error: 'Not a conversation.' }, { status: 404 });
  const last = (await conversationTurns(parsed.data, { answers: false })).at(-1);
  if (!last) return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
  return createUIMessageStreamResponse({
    stream: followAnswer({
      runId: last.runId,
      from: last.status === 'running' ? 'next' : 'replay',
      signal: request.signal,
      stillAuthorized: () => sessionStillOn(auth.session),
      untilAnswered: true,
    }),
    headers: { 'Cache-Control': 'no-store' },
  });
}
