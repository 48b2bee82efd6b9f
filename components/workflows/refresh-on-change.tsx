'use client';

import { useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { runQuery } from '@/lib/studio/reads/queries';

/**
 * Reads the server-rendered part of a run page again when the run moves (its last event changes, as the
 * run page's live stream writes it into the cache): a workflow's waits and children are read on the server.
 */
export function RefreshOnRunChange({ runId }: { runId: string }) {
  const router = useRouter();
  const { data } = useQuery({ ...runQuery(runId), enabled: false });
  const seen = useRef<number | undefined>(undefined);
  const lastSeq = data?.lastSeq;
  useEffect(() => {
    if (lastSeq === undefined) return;
    if (seen.current !== undefined && seen.current !== lastSeq) router.refresh();
    seen.current = lastSeq;
  }, [lastSeq, router]);
  return null;
}
