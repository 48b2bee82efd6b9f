'use client';

import { cn } from '@/lib/utils';
import { formatUtc } from './time';

/** "just now", "5 s ago", "3 min ago", "2 h ago", "4 d ago" (or "in …" for a future moment). */
export function relativeText(ms: number, now: number): string {
  const delta = now - ms;
  const ahead = delta < 0;
  const s = Math.abs(delta) / 1000;
  const amount =
    s < 5
      ? undefined
      : s < 60
        ? `${Math.floor(s)} s`
        : s < 3600
          ? `${Math.floor(s / 60)} min`
          : s < 86_400
            ? `${Math.floor(s / 3600)} h`
            : `${Math.floor(s / 86_400)} d`;
  if (amount === undefined) return 'just now';
  return ahead ? `in ${amount}` : `${amount} ago`;
}

/**
 * A moment as "3 min ago", the exact UTC time on hover (`title`) and in `dateTime`. Relative to the
 * reader's clock at render: the server's text may differ from the browser's by the seconds between.
 */
export function RelativeTime({ value, className, ...props }: Omit<React.ComponentProps<'time'>, 'dateTime' | 'children'> & { value: string }) {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return <span className={className}>{value}</span>;
  const iso = new Date(ms).toISOString();
  return (
    <time dateTime={iso} title={formatUtc(ms)} className={cn('tabular-nums whitespace-nowrap', className)} suppressHydrationWarning {...props}>
      {relativeText(ms, Date.now())}
    </time>
  );
}
