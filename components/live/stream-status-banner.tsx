'use client';

import { useEffect, useState } from 'react';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import type { StreamStatus } from './use-event-stream';

/** Streams reconnect briefly after every natural end; only a stream down longer than this is shown. */
const GRACE_MS = 1_500;

/** A visible warning while a live stream is down: what the page shows may be out of date. */
export function StreamStatusBanner({ status, what, ...props }: React.ComponentProps<typeof Alert> & { status: StreamStatus; what: string }) {
  const [stale, setStale] = useState(false);
  useEffect(() => {
    if (status === 'live') {
      setStale(false);
      return;
    }
    const timer = setTimeout(() => setStale(true), GRACE_MS);
    return () => clearTimeout(timer);
  }, [status]);
  if (!stale) return null;
  return (
    <Alert variant="warning" data-testid="stream-stale" data-status={status} className="sticky top-2 z-20 shadow-sm" {...props}>
      <AlertTitle>Live updates are down — reconnecting</AlertTitle>
      <AlertDescription>
        {what} may be out of date. The Studio keeps trying and catches up from the journal once the connection is back: no event is lost or shown twice.
      </AlertDescription>
    </Alert>
  );
}
