import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { loadCallDecision } from '@/lib/studio/reads/call-decision';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';
import { filterTextProblem } from '@/lib/studio/reads/runs';

/** Whether the journal recorded a decision on one call (?call=<toolCallId>), by whom and when: read after a decision's answer was lost. */
export async function GET(request: Request, { params }: { params: Promise<{ runId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const runId = decodeRunSegment((await params).runId);
  const toolCallId = new URL(request.url).searchParams.get('call');
  if (!toolCallId) return Response.json({ error: 'Name the call: ?call=<toolCallId>.' }, { status: 400 });
  const problem = filterTextProblem('call', toolCallId);
  if (problem || toolCallId.length > 200) return Response.json({ error: problem ?? 'call is at most 200 characters.' }, { status: 400 });
  const found = runId === undefined ? undefined : await loadCallDecision(runId, toolCallId);
  if (!found) return Response.json({ error: 'No run has this id in this journal.' }, { status: 404 });
  return Response.json(found, { headers: { 'Cache-Control': 'no-store' } });
}
