import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { loadRunNotifications } from '@/lib/studio/reads/notifications';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';
import { findRun } from '@/lib/studio/reads/runs';

/** A run's webhook notifications and their deliveries, as its page shows them (re-read while a delivery is pending). */
export async function GET(_request: Request, { params }: { params: Promise<{ runId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const runId = decodeRunSegment((await params).runId);
  const run = runId === undefined ? undefined : await findRun(runId);
  if (!run) return Response.json({ error: 'No run has this id in this journal.' }, { status: 404 });
  return Response.json(await loadRunNotifications(run.runId), { headers: { 'Cache-Control': 'no-store' } });
}
