import { operatorOrRefusal, sessionStillOn } from '@/lib/studio/auth/session';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';
import { resumeAfter, runEventsResponse } from '@/lib/studio/live/live';
import { findRun } from '@/lib/studio/reads/runs';

/** A run's journal as server-sent events, resuming after Last-Event-ID (or ?after=). */
export async function GET(request: Request, { params }: { params: Promise<{ runId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const runId = decodeRunSegment((await params).runId);
  const run = runId === undefined ? undefined : await findRun(runId);
  if (!run) return Response.json({ error: 'No run has this id in this journal.' }, { status: 404 });
  return runEventsResponse({
    runId: run.runId,
    afterSeq: resumeAfter(request),
    signal: request.signal,
    stillAuthorized: () => sessionStillOn(auth.session),
    holder: auth.operator.id,
  });
}
