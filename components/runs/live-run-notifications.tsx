'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { NotificationView } from '@/lib/studio/reads/notifications';
import { runNotificationsQuery, runQuery } from '@/lib/studio/reads/queries';
import { RunNotifications } from './run-notifications';

/** While a delivery is pending (retries with backoff), how often its row is read again. */
const PENDING_POLL_MS = 2_000;

/**
 * The run page's notifications, kept current: a notification is written with the run event that causes
 * it (a suspend, a final failure), so each new event the page's live journal receives re-reads the list;
 * its delivery happens afterwards, in the background, so a pending one is re-read until it settles.
 */
export function LiveRunNotifications({ runId, initial }: { runId: string; initial: NotificationView[] }) {
  // The run as the page's live journal keeps it (run-view.tsx fills this entry); never fetched from here.
  const { data: run } = useQuery({ ...runQuery(runId), enabled: false });
  const { data, refetch } = useQuery({
    ...runNotificationsQuery(runId),
    initialData: initial,
    refetchInterval: (query) => (query.state.data?.some((n) => n.delivery === 'pending') ? PENDING_POLL_MS : false),
  });
  const seen = useRef(run?.lastSeq);
  useEffect(() => {
    if (run?.lastSeq === undefined || run.lastSeq === seen.current) return;
    seen.current = run.lastSeq;
    void refetch();
  }, [run?.lastSeq, refetch]);
  return <RunNotifications notifications={data} />;
}
