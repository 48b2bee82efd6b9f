import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { runExportResponse } from '@/lib/studio/reads/run-export';
import { decodeRunSegment } from '@/lib/studio/reads/run-path';

/** A run's whole journal as JSON lines, secrets redacted, as a download (the run page's Export). */
export async function GET(_request: Request, { params }: { params: Promise<{ runId: string }> }) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const runId = decodeRunSegment((await params).runId);
  if (runId === undefined) return Response.json({ error: 'No run has this id in this journal.' }, { status: 404 });
  return runExportResponse(runId);
}
