'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { inboxCountQuery } from '@/lib/studio/reads/queries';
import { cn } from '@/lib/utils';

/** The nav's Inbox link with how many items wait there, live (re-read by the runs stream whenever a run changes). */
export function InboxCountLink({ initial, className, ...props }: Omit<React.ComponentProps<typeof Link>, 'href'> & { initial: number }) {
  const { data } = useQuery({ ...inboxCountQuery(), initialData: { items: initial } });
  const waiting = data.items;
  return (
    <Link href="/inbox" className={cn('inline-flex items-center gap-1.5 hover:text-foreground', className)} {...props}>
      Inbox
      <span
        data-testid="nav-inbox-count"
        data-count={waiting}
        className={cn(
          'min-w-5 rounded-full px-1.5 text-center text-xs font-medium tabular-nums',
          waiting > 0 ? 'bg-amber-500/15 text-amber-800 dark:text-amber-300' : 'bg-muted text-muted-foreground',
        )}
      >
        {waiting}
        <span className="sr-only"> waiting</span>
      </span>
    </Link>
  );
}
