'use client';

import { useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { runQuery } from '@/lib/studio/reads/queries';

/**
 * Reads the server-rendered part of a run page again when the run has moved past what the server rendered
 * (`renderedSeq`, the run's last event when the page was read): a workflow's waits and children are read on
 * the server, the live stream writes the run's last event into the cache. Compared with what was rendered,
 * not with the cache's first value: a cache already ahead when this mounts (the stream, or an earlier page's
 * read of the run) left the page showing the wait without its children, for good (a red e2e run).
 */
export function RefreshOnRunChange({ runId, renderedSeq }: { runId: string; renderedSeq: number }) {
  const router = useRouter();
  const { data } = useQuery({ ...runQuery(runId), enabled: false });
  const asked = useRef<number | undefined>(undefined);
  const lastSeq = data?.lastSeq;
  useEffect(() => {
    if (lastSeq === undefined || lastSeq <= renderedSeq || asked.current === lastSeq) return;
    asked.current = lastSeq;
    router.refresh();
  }, [lastSeq, renderedSeq, router]);
  return null;
}
