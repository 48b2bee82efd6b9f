import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';
import { findRun } from '@/lib/studio/reads/runs';
import { toWireRun } from '@/lib/studio/reads/wire';

/** A run's summary as JSON. */
export async function GET(_request: Request, { params }: { params: Promise<{ runId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const runId = decodeRunSegment((await params).runId);
  const run = runId === undefined ? undefined : await findRun(runId);
  if (!run) return Response.json({ error: 'No run has this id in this journal.' }, { status: 404 });
  return Response.json(toWireRun(run), { headers: { 'Cache-Control': 'no-store' } });
}
