import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { filterTextProblem, listRuns, parseFilterText, parsePageSize, parseRunStatus } from '@/lib/studio/reads/runs';

/** One page of runs as JSON (the runs page re-reads it when its live stream says it may have missed changes). */
export async function GET(request: Request) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  const params = new URL(request.url).searchParams;
  const problem = filterTextProblem('q', params.get('q')) ?? filterTextProblem('agent', params.get('agent'));
  if (problem) return Response.json({ error: problem }, { status: 400 });
  const cursor = params.get('cursor') || undefined;
  const page = await listRuns({
    status: parseRunStatus(params.get('status')),
    agent: parseFilterText(params.get('agent')),
    q: parseFilterText(params.get('q')),
    cursor,
    limit: parsePageSize(params.get('limit')),
  });
  if ('badCursor' in page) return Response.json({ error: 'This cursor is not one the journal gave out.' }, { status: 400 });
  return Response.json(page, { headers: { 'Cache-Control': 'no-store' } });
}
