import { cn } from '@/lib/utils';

const utc = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
  timeZone: 'UTC',
});

/** "02 Dec 2026, 03:52:14 UTC": how the Studio writes an exact moment (Time, and RelativeTime's tooltip). */
export function formatUtc(date: Date | number): string {
  return `${utc.format(date)} UTC`;
}

/** A moment, shown in UTC (the server renders it; the reader's zone is not known there), exact in `dateTime` and the tooltip. */
export function Time({ value, className, ...props }: Omit<React.ComponentProps<'time'>, 'dateTime' | 'children'> & { value: Date | string }) {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return <span className={className}>{String(value)}</span>;
  const iso = date.toISOString();
  return (
    <time dateTime={iso} title={iso} className={cn('tabular-nums whitespace-nowrap', className)} {...props}>
      {formatUtc(date)}
    </time>
  );
}
