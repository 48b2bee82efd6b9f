import { Time } from '@/components/ui/time';
import type { RunListing } from '@/lib/studio/reads/run-listing';
import { cn } from '@/lib/utils';
import { VisibleText } from '@/components/ui/visible-text';

/** Why a running run is not moving: its executor's lease ran out and no live process holds it. */
export function RunLeaseLapsed({ lease, className, ...props }: React.ComponentProps<'p'> & { lease: NonNullable<RunListing['lapsedLease']> }) {
  return (
    <p data-slot="run-lease-lapsed" className={cn('text-xs', className)} {...props}>
      <span className="font-medium">Lease lapsed</span>
      <span className="text-muted-foreground">: executor </span>
      <code className="font-mono wrap-anywhere">
        <VisibleText text={lease.owner} />
      </code>
      <span className="text-muted-foreground">
        {' '}
        stopped renewing it (expired <Time value={lease.expiredAt} />
        {lease.heartbeatAt ? (
          <>
            , last heartbeat <Time value={lease.heartbeatAt} />
          </>
        ) : null}
        ); nobody executes the run until an executor claims it again.
      </span>
    </p>
  );
}
