import Link from 'next/link';
import { connection } from 'next/server';
import { LiveRunsTable } from '@/components/live/live-runs-table';
import { RunSearchForm } from '@/components/runs/run-search-form';
import { RunStatusFilter } from '@/components/runs/run-status-filter';
import { buttonVariants } from '@/components/ui/button';
import { VisibleText } from '@/components/ui/visible-text';
import { agentNames, DEFAULT_PAGE_SIZE, listRuns, parseFilterText, parsePageSize, parseRunStatus, RUN_STATUS_FILTERS } from '@/lib/studio/reads/runs';
import { requireOperator } from '@/lib/studio/auth/session';

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function RunsPage({ searchParams }: { searchParams: SearchParams }) {
  await connection(); // the journal is read per request, never prerendered
  await requireOperator();
  const params = await searchParams;
  const status = parseRunStatus(params.status);
  const cursor = typeof params.cursor === 'string' && params.cursor !== '' ? params.cursor : undefined;
  const limit = parsePageSize(params.limit);
  const agent = parseFilterText(params.agent);
  const q = parseFilterText(params.q);
  const page = await listRuns({ status, agent, q, cursor, limit });
  /** The filters besides status, carried by every link of this page. */
  const keep = { ...(agent ? { agent } : {}), ...(q ? { q } : {}) };

  const query = (extra: Record<string, string>) => {
    const search = new URLSearchParams({
      ...(status ? { status } : {}),
      ...keep,
      ...(limit !== DEFAULT_PAGE_SIZE ? { limit: String(limit) } : {}),
      ...extra,
    });
    const text = search.toString();
    return text ? `/?${text}` : '/';
  };

  if ('badCursor' in page) {
    return (
      <p className="rounded-lg border border-dashed px-4 py-10 text-center text-sm text-muted-foreground" data-testid="runs-bad-cursor">
        This page link is not one the journal gave out.{' '}
        <Link href={query({})} className="text-link hover:underline">
          Go to the first page
        </Link>
        .
      </p>
    );
  }

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-xl font-semibold tracking-tight">Runs</h1>
          <p className="text-sm text-muted-foreground wrap-anywhere">
            Newest first{status ? `, status ${status}` : ''}
            {agent ? <VisibleText text={`, agent ${agent}`} /> : ''}
            {q ? <VisibleText text={`, matching “${q}” (run id prefix, tool name or idempotency key)`} /> : ''}.
          </p>
        </div>
        <div className="flex flex-wrap items-end gap-2">
          <RunStatusFilter statuses={RUN_STATUS_FILTERS} current={status} keep={keep} />
          <Link
            href={`/bulk?${new URLSearchParams({ ...(status ? { status } : {}), ...(agent ? { agent } : {}) }).toString()}`}
            className={buttonVariants({ variant: 'outline', size: 'sm' })}
            data-testid="runs-bulk-link"
          >
            Bulk actions…
          </Link>
        </div>
      </div>
      <RunSearchForm agents={agentNames()} agent={agent} q={q} status={status} />
      <LiveRunsTable
        params={{ status, agent, q, cursor, limit }}
        initial={page}
        toDemo={!cursor && !q && !agent && !status}
        empty={
          cursor
            ? 'No more runs.'
            : q
              ? `No run${status ? ` that is ${status}` : ''}${agent ? ` of agent ${agent}` : ''} has an id starting with “${q}”, called a tool named “${q}” or holds the idempotency key “${q}”.`
              : agent
                ? `No run of agent ${agent}${status ? ` is ${status}` : ''}.`
                : status
                  ? `No run is ${status}.`
                  : 'No runs yet. Runs appear here as soon as runDurable records them in this journal.'
        }
      />
      <nav aria-label="Pages" className="flex justify-end gap-2">
        {cursor ? (
          <Link href={query({})} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
            First page
          </Link>
        ) : null}
        {page.nextCursor ? (
          <Link href={query({ cursor: page.nextCursor })} className={buttonVariants({ variant: 'outline', size: 'sm' })}>
            Next page
          </Link>
        ) : null}
      </nav>
    </div>
  );
}
