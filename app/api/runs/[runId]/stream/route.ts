import { operatorOrRefusal, sessionStillOn } from '@/lib/studio/auth/session';
import { runStreamFrom, runStreamResponse } from '@/lib/studio/live/run-stream';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';
import { findRun } from '@/lib/studio/reads/runs';

/** A run's answer as it streams (a UI message stream, lib/studio/live/run-stream.ts); 204 when it streamed nothing. */
export async function GET(request: Request, { params }: { params: Promise<{ runId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const runId = decodeRunSegment((await params).runId);
  const run = runId === undefined ? undefined : await findRun(runId);
  if (!run) return Response.json({ error: 'No run has this id in this journal.' }, { status: 404 });
  return runStreamResponse({ runId: run.runId, from: runStreamFrom(request), signal: request.signal, stillAuthorized: () => sessionStillOn(auth.session) });
}
