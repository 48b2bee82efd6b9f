'use client';

import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { inboxAfterRunChange } from '@/lib/studio/reads/inbox-live';
import { inboxQuery, runQuery, type runsQuery } from '@/lib/studio/reads/queries';
import { listingMatches, type RunListPage } from '@/lib/studio/reads/run-listing';
import type { WireRun } from '@/lib/studio/reads/wire';
import { type StreamStatus, useEventStream } from './use-event-stream';

type RunsKey = ReturnType<typeof runsQuery>['queryKey'];

/** Lists that a run change may touch and that are re-read rather than patched. */
const DERIVED_LISTS = [['inbox'], ['demo']] as const;

/**
 * Follows every run's summary: patches the cached run lists and summaries in place, and re-reads the
 * derived lists (inbox, demo counters). On connect and after the journal's listener reconnected
 * (`resync`), everything listed is re-read: changes in between may have been missed. One of the two
 * pieces of code that write to the query cache (use-run-live.ts is the other).
 */
export function useRunsLive(): StreamStatus {
  const queryClient = useQueryClient();
  const resync = () => {
    void queryClient.invalidateQueries({ queryKey: ['runs'] });
    for (const queryKey of DERIVED_LISTS) void queryClient.invalidateQueries({ queryKey });
    return undefined;
  };
  return useEventStream({
    key: 'runs',
    url: () => '/api/events',
    handlers: {
      hello: resync,
      resync,
      run: (data) => {
        applyRunChange(queryClient, data as WireRun);
        return undefined;
      },
    },
  });
}

function applyRunChange(queryClient: QueryClient, run: WireRun): void {
  if (queryClient.getQueryData(runQuery(run.runId).queryKey)) queryClient.setQueryData(runQuery(run.runId).queryKey, run);
  // A decided or resumed run's cards leave the inbox now, before its re-read (below) answers.
  const inbox = queryClient.getQueryData(inboxQuery().queryKey);
  if (inbox) queryClient.setQueryData(inboxQuery().queryKey, inboxAfterRunChange(inbox, run));
  for (const [key, page] of queryClient.getQueriesData<RunListPage>({ queryKey: ['runs'] })) {
    if (!page) continue;
    const [, status, cursor, , agent, q] = key as RunsKey;
    const matches = listingMatches(run, { status: status ?? undefined, agent: agent ?? undefined });
    const index = page.runs.findIndex((r) => r.runId === run.runId);
    if (index >= 0) {
      // A listed run is replaced (a run that moved has no lapsed lease; its tokens are re-read after a
      // model step), or dropped when it left the filtered status or agent.
      const listed = page.runs[index];
      const runs = matches
        ? page.runs.map((r, i) => (i === index ? { ...run, tokens: r.tokens, marks: r.marks } : r))
        : page.runs.filter((_, i) => i !== index);
      queryClient.setQueryData(key, { ...page, runs });
      if (matches && listed && (listed.stepCount !== run.stepCount || listed.status !== run.status))
        void queryClient.invalidateQueries({ queryKey: key, exact: true });
    } else if (matches && cursor === null && q === null) {
      // A run new to a first page: re-read it, so the journal's order and page size hold. (A search's
      // page is not: whether a new run matches a tool name or key is the server's to say, on resync.)
      void queryClient.invalidateQueries({ queryKey: key, exact: true });
    }
  }
  for (const queryKey of DERIVED_LISTS) void queryClient.invalidateQueries({ queryKey });
}
