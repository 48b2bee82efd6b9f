'use client';

import { useQueryClient } from '@tanstack/react-query';
import { runInboxQuery, runQuery, runTailQuery } from '@/lib/studio/reads/queries';
import { encodeRunSegment } from '@/lib/studio/reads/run-path';
import { mergeIntoTail, tailHead } from '@/lib/studio/reads/timeline-window';
import type { WireEvent, WireRun } from '@/lib/studio/reads/wire';
import { type StreamStatus, useEventStream } from './use-event-stream';

/**
 * Follows one run: every event after the newest one in the cache, merged into its tail in order, each
 * once (a batch that does not continue the tail exactly makes it reconnect from the tail's head), and
 * the run's summary. One of the two pieces of code that write to the query cache (use-runs-live.ts is
 * the other).
 */
export function useRunLive(runId: string): StreamStatus {
  const queryClient = useQueryClient();
  const tailKey = runTailQuery(runId).queryKey;
  const head = () => {
    const tail = queryClient.getQueryData(tailKey);
    return tail ? tailHead(tail) : 0;
  };
  return useEventStream({
    key: `run:${runId}`,
    url: () => `/api/runs/${encodeRunSegment(runId)}/events?after=${head()}`,
    handlers: {
      events: (data) => {
        const tail = queryClient.getQueryData(tailKey);
        if (!tail) return 'reconnect';
        const merged = mergeIntoTail(tail, data as WireEvent[]);
        if (merged.tail !== tail) queryClient.setQueryData(tailKey, merged.tail);
        return merged.gap ? 'reconnect' : undefined;
      },
      run: (data) => {
        queryClient.setQueryData(runQuery(runId).queryKey, data as WireRun);
        // What it waits for may have changed: its choices (run-decisions.tsx) are re-read.
        void queryClient.invalidateQueries({ queryKey: runInboxQuery(runId).queryKey });
        // The run moved: what the demo's outside service counted may have too.
        void queryClient.invalidateQueries({ queryKey: ['demo'] });
        return undefined;
      },
    },
  });
}
