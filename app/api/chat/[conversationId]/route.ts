import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { conversationTurns } from '@/lib/studio/chat/chat-history';
import { conversationIdSchema } from '@/lib/studio/chat/chat-request';

/** Where each turn of the conversation stands (the chat page asks while its last turn waits for a person). */
export async function GET(_request: Request, { params }: { params: Promise<{ conversationId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const parsed = conversationIdSchema.safeParse((await params).conversationId);
  if (!parsed.success) return Response.json({ error: 'Not a conversation.' }, { status: 404 });
  const turns = await conversationTurns(parsed.data, { answers: false });
  return Response.json(
    {
      turns: turns.map((turn) => ({
        runId: turn.runId,
        status: turn.status,
        waitingFor: turn.pending.filter((item) => !item.decision).map((item) => item.toolName),
      })),
    },
    { headers: { 'Cache-Control': 'no-store' } },
  );
}
