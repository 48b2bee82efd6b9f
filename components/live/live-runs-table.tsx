'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { RunsTable } from '@/components/runs/runs-table';
import { type RunsListParams, runsQuery } from '@/lib/studio/reads/queries';
import type { RunListPage } from '@/lib/studio/reads/run-listing';
import { StreamStatusBanner } from './stream-status-banner';
import { useRunsLiveStatus } from './runs-live';
import { VisibleText } from '@/components/ui/visible-text';

/** The runs table, kept current by the runs stream. */
/** `toDemo`: an empty list (no filter) points to the Demo page, where a first run is one click away. */
export function LiveRunsTable({ params, initial, empty, toDemo }: { params: RunsListParams; initial: RunListPage; empty: string; toDemo?: boolean }) {
  const status = useRunsLiveStatus();
  const { data } = useQuery({ ...runsQuery(params), initialData: initial });
  return (
    <div className="space-y-3" data-testid="live-runs" data-stream={status}>
      <StreamStatusBanner status={status} what="The runs listed here" />
      {data.runs.length > 0 ? (
        <RunsTable runs={data.runs} />
      ) : (
        <p className="rounded-lg border border-dashed px-4 py-10 text-center text-sm text-muted-foreground wrap-anywhere" data-testid="runs-empty">
          <VisibleText text={empty} />
          {toDemo ? (
            <>
              {' '}
              <Link href="/demo" className="font-medium text-link hover:underline" data-testid="runs-empty-demo">
                Start one on the Demo page →
              </Link>
            </>
          ) : null}
        </p>
      )}
    </div>
  );
}
