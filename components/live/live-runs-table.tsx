'use client';

import { useQuery } from '@tanstack/react-query';
import { RunsTable } from '@/components/runs/runs-table';
import { type RunsListParams, runsQuery } from '@/lib/studio/reads/queries';
import type { RunListPage } from '@/lib/studio/reads/run-listing';
import { StreamStatusBanner } from './stream-status-banner';
import { useRunsLive } from './use-runs-live';
import { VisibleText } from '@/components/ui/visible-text';

/** The runs table, kept current by the runs stream. */
export function LiveRunsTable({ params, initial, empty }: { params: RunsListParams; initial: RunListPage; empty: string }) {
  const status = useRunsLive();
  const { data } = useQuery({ ...runsQuery(params), initialData: initial });
  return (
    <div className="space-y-3" data-testid="live-runs" data-stream={status}>
      <StreamStatusBanner status={status} what="The runs listed here" />
      {data.runs.length > 0 ? (
        <RunsTable runs={data.runs} />
      ) : (
        <p className="rounded-lg border border-dashed px-4 py-10 text-center text-sm text-muted-foreground" data-testid="runs-empty">
          <VisibleText text={empty} />
        </p>
      )}
    </div>
  );
}
