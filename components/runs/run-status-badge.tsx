import { cva } from 'class-variance-authority';
import type { RunStatus } from '@/lib/durable';
import { cn } from '@/lib/utils';

/** Colours keyed by the status union itself: a new RunStatus fails to compile until it has a colour. */
const statusColours = {
  running: 'border-sky-500/40 bg-sky-500/10 text-sky-800 dark:text-sky-300',
  'waiting-approval': 'border-amber-500/40 bg-amber-500/10 text-amber-800 dark:text-amber-300',
  'waiting-tool-result': 'border-violet-500/40 bg-violet-500/10 text-violet-800 dark:text-violet-300',
  waiting: 'border-indigo-500/40 bg-indigo-500/10 text-indigo-800 dark:text-indigo-300',
  blocked: 'border-orange-600/50 bg-orange-600/10 text-orange-800 dark:text-orange-300',
  completed: 'border-emerald-500/40 bg-emerald-500/10 text-emerald-800 dark:text-emerald-300',
  failed: 'border-red-500/40 bg-red-500/10 text-red-800 dark:text-red-300',
  canceled: 'border-border bg-muted text-muted-foreground',
} satisfies Record<RunStatus, string>;

export const runStatusBadgeVariants = cva('inline-flex items-center rounded-md border px-2 py-0.5 text-xs font-medium whitespace-nowrap', {
  variants: { status: statusColours },
});

export function RunStatusBadge({ status, className, ...props }: React.ComponentProps<'span'> & { status: RunStatus }) {
  return (
    <span data-slot="run-status-badge" data-status={status} className={cn(runStatusBadgeVariants({ status }), className)} {...props}>
      {status}
    </span>
  );
}
