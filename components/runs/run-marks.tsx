import { cva } from 'class-variance-authority';
import type { RunMarks } from '@/lib/studio/reads/run-listing';
import { cn } from '@/lib/utils';

type Mark = keyof RunMarks | 'inbox';

const markVariants = cva('inline-flex items-center rounded px-1.5 py-0.5 text-[11px] leading-none font-medium whitespace-nowrap', {
  variants: {
    mark: {
      interrupted: 'bg-red-500/10 text-red-700 dark:text-red-400',
      waited: 'bg-amber-500/10 text-amber-800 dark:text-amber-400',
      decided: 'bg-emerald-500/10 text-emerald-800 dark:text-emerald-400',
      imported: 'bg-sky-500/10 text-sky-800 dark:text-sky-400',
      inbox: 'bg-foreground text-background',
    } satisfies Record<Mark, string>,
  },
});

const TEXT = { interrupted: 'crashed', waited: 'waited', decided: 'decided', imported: 'imported' } satisfies Record<keyof RunMarks, string>;
const TITLE = {
  interrupted: 'An invocation stopped without finishing (its process ended or its lease lapsed) and the run was taken over',
  waited: 'The run waited for a person at least once',
  decided: 'A person decided in it: approved, rejected, settled a side effect or provided a result',
  imported: 'Brought in from an export (gnl import): its history was recorded in another journal',
} satisfies Record<keyof RunMarks, string>;

/** A run's marks at a glance: crashed, waited for a person, decided by one, imported, and what it has in the inbox now. */
export function RunMarksRow({ marks, inbox, className, ...props }: React.ComponentProps<'span'> & { marks: RunMarks | undefined; inbox: number }) {
  const shown = (Object.keys(TEXT) as (keyof RunMarks)[]).filter((mark) => marks?.[mark]);
  if (shown.length === 0 && inbox === 0) return null;
  return (
    <span data-testid="run-marks" className={cn('inline-flex flex-wrap gap-1', className)} {...props}>
      {inbox > 0 ? (
        <a href="/inbox" data-mark="inbox" title="Waiting for a person in the inbox" className={markVariants({ mark: 'inbox' })}>
          {inbox} in inbox
        </a>
      ) : null}
      {shown.map((mark) => (
        <span key={mark} data-mark={mark} title={TITLE[mark]} className={markVariants({ mark })}>
          {TEXT[mark]}
        </span>
      ))}
    </span>
  );
}
