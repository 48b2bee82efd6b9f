import { createUIMessageStreamResponse } from 'ai';
import { AgentInputError } from '@/lib/agents';
import { operatorOrRefusal, sessionStillOn } from '@/lib/studio/auth/session';
import { chatRequestSchema } from '@/lib/studio/chat/chat-request';
import { ChatBusyError, startChatTurn } from '@/lib/studio/chat/chat-turn';
import { followAnswer } from '@/lib/studio/live/run-stream';

/**
 * A new user turn (useChat's send): its run is started on this server's executor, and the answer is
 * streamed from the run's stream log, so what this response shows is what a reconnect replays.
 */
export async function POST(request: Request) {
  // A turn starts a run of the support agent: the role must allow starting runs, as the Demo page's start.
  const auth = await operatorOrRefusal('start');
  if ('refusal' in auth) return auth.refusal;
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return Response.json({ error: 'The request body is not JSON.' }, { status: 400 });
  }
  const parsed = chatRequestSchema.safeParse(body);
  if (!parsed.success) return Response.json({ error: parsed.error.issues.map((issue) => issue.message).join('; ') }, { status: 400 });
  let runId: string;
  try {
    ({ runId } = await startChatTurn(parsed.data, auth.operator.login));
  } catch (error) {
    if (ChatBusyError.isInstance(error)) return Response.json({ error: error.message, status: error.status }, { status: 409 });
    // A message the agent's input rules refuse is the sender's to fix: a 400 that says why, not a 500.
    if (AgentInputError.isInstance(error)) return Response.json({ error: error.message }, { status: 400 });
    throw error;
  }
  // Ended when the session is signed out (asked each heartbeat), as the run page's live step; no lifetime, and a
  // cut (a newer invocation took over) errors, so useChat reconnects and replays the answer whole.
  return createUIMessageStreamResponse({
    stream: followAnswer({ runId, signal: request.signal, stillAuthorized: () => sessionStillOn(auth.session), untilAnswered: true }),
    headers: { 'Cache-Control': 'no-store', 'X-GNL-Run-Id': encodeURIComponent(runId) },
  });
}

/** Only POST sends a turn; a GET is told so (after the session check, like every route). */
export async function GET() {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  return Response.json({ error: 'Send a turn with POST.' }, { status: 405, headers: { Allow: 'POST' } });
}
