import Link from 'next/link';
import { buttonVariants } from '@/components/ui/button';
import type { RunStatus } from '@/lib/durable';
import { cn } from '@/lib/utils';

/**
 * Status filter as plain links (`?status=`), so it works without JavaScript and each view has a URL.
 * `keep`: the other filters (agent, search), carried into every link.
 */
export function RunStatusFilter({
  statuses,
  current,
  keep = {},
  className,
  ...props
}: React.ComponentProps<'nav'> & { statuses: readonly RunStatus[]; current: RunStatus | undefined; keep?: Record<string, string> }) {
  const href = (status?: RunStatus) => {
    const text = new URLSearchParams({ ...(status ? { status } : {}), ...keep }).toString();
    return text ? `/?${text}` : '/';
  };
  const options: { label: string; href: string; active: boolean }[] = [
    { label: 'all', href: href(), active: current === undefined },
    ...statuses.map((status) => ({ label: status, href: href(status), active: current === status })),
  ];
  return (
    <nav aria-label="Filter runs by status" data-slot="run-status-filter" className={cn('flex flex-wrap gap-1.5', className)} {...props}>
      {options.map((option) => (
        <Link
          key={option.label}
          href={option.href}
          aria-current={option.active ? 'page' : undefined}
          className={buttonVariants({ variant: option.active ? 'default' : 'outline', size: 'sm' })}
        >
          {option.label}
        </Link>
      ))}
    </nav>
  );
}
