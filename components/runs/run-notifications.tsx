import { cva } from 'class-variance-authority';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { Delivery } from '@/lib/executor';
import type { NotificationView } from '@/lib/studio/reads/notifications';
import { cn } from '@/lib/utils';

/** Colours keyed by the delivery union itself: a new state fails to compile until it has one. */
const deliveryColours = {
  pending: 'border-amber-500/40 bg-amber-500/10 text-amber-800 dark:text-amber-300',
  delivered: 'border-emerald-500/40 bg-emerald-500/10 text-emerald-800 dark:text-emerald-300',
  failed: 'border-red-500/40 bg-red-500/10 text-red-800 dark:text-red-300',
  superseded: 'border-border bg-muted text-muted-foreground',
  expired: 'border-border bg-muted text-muted-foreground',
} satisfies Record<Delivery, string>;

const deliveryBadge = cva('inline-flex items-center rounded-md border px-2 py-0.5 text-xs font-medium whitespace-nowrap', {
  variants: { delivery: deliveryColours },
});

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The webhooks that announced this run's waits and failures (docs/notifications.md), as the outbox recorded them. */
export function RunNotifications({ notifications, className, ...props }: React.ComponentProps<'details'> & { notifications: NotificationView[] }) {
  if (notifications.length === 0) return null;
  const open = notifications.some((n) => n.delivery === 'pending' || n.delivery === 'failed');
  return (
    <details data-slot="run-notifications" open={open} className={cn('text-xs', className)} {...props}>
      <summary className="cursor-pointer text-muted-foreground">Notifications ({notifications.length})</summary>
      <ul className="mt-1 space-y-1">
        {notifications.map((n) => (
          <li key={n.seq} data-testid="run-notification" data-delivery={n.delivery} className="space-y-0.5">
            <div className="flex flex-wrap items-center gap-2">
              <span className={deliveryBadge({ delivery: n.delivery })}>{n.delivery}</span>
              <a href={`#seq-${n.seq}`} className="text-link hover:underline">
                #{n.seq} {n.status}
              </a>
              <span className="text-muted-foreground">{plural(n.attempts, 'attempt')}</span>
              {n.deliveredAt ? <Time value={n.deliveredAt} className="text-muted-foreground" /> : null}
              {n.nextAttemptAt ? (
                <span className="text-muted-foreground">
                  next attempt <Time value={n.nextAttemptAt} />
                </span>
              ) : null}
              <code className="font-mono text-muted-foreground" title="the event id receivers deduplicate by">
                {n.eventId}
              </code>
            </div>
            {n.lastError ? (
              <p className="text-muted-foreground">
                <VisibleText text={n.lastError} />
              </p>
            ) : null}
            {n.targets.length > 0 ? (
              <ul className="pl-4 text-muted-foreground">
                {n.targets.map((t) => (
                  <li key={t.target}>
                    <VisibleText text={t.target} />: {t.status}
                    {t.httpStatus !== null ? ` (HTTP ${t.httpStatus})` : ''}
                    {t.error && t.httpStatus === null ? (
                      <>
                        {' '}
                        — <VisibleText text={t.error} />
                      </>
                    ) : null}{' '}
                    <Time value={t.at} />
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </details>
  );
}
