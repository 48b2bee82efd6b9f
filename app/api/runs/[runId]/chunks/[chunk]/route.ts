import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';
import { getEventsChunk } from '@/lib/studio/reads/runs';

/** One chunk of a run's journal as JSON (lib/studio/reads/timeline-window.ts). */
export async function GET(_request: Request, { params }: { params: Promise<{ runId: string; chunk: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const { runId: segment, chunk } = await params;
  const runId = decodeRunSegment(segment);
  if (runId === undefined || !/^\d{1,7}$/.test(chunk)) return Response.json({ error: 'Not a run chunk.' }, { status: 404 });
  return Response.json(await getEventsChunk(runId, Number(chunk)), { headers: { 'Cache-Control': 'no-store' } });
}
