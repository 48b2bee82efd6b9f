import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { loadRunInbox } from '@/lib/studio/reads/inbox';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';
import { findRun } from '@/lib/studio/reads/runs';

/** What one run waits for a person to decide, as the inbox shows it (its run page offers the same choices). */
export async function GET(_request: Request, { params }: { params: Promise<{ runId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const runId = decodeRunSegment((await params).runId);
  const run = runId === undefined ? undefined : await findRun(runId);
  if (!run) return Response.json({ error: 'No run has this id in this journal.' }, { status: 404 });
  return Response.json(await loadRunInbox(run.runId), { headers: { 'Cache-Control': 'no-store' } });
}
