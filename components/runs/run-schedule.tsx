import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { RunTimer } from '@/lib/durable/projection';
import type { RunSchedule as Schedule } from '@/lib/studio/reads/run-schedule';
import { cn } from '@/lib/utils';

/** A timer as a sentence's subject: what fires at its time. Names and reasons come from the journal: rendered as text. */
function TimerWhat({ timer }: { timer: RunTimer }) {
  switch (timer.kind) {
    case 'approval-deadline':
      return (
        <>
          The approval of{' '}
          <code className="font-mono">
            <VisibleText text={timer.toolName} />
          </code>{' '}
          expires (treated as rejected)
        </>
      );
    case 'retry':
      return (
        <>
          Attempt {timer.attempt} of {timer.attempts} begins
        </>
      );
    case 'resume':
      return (
        <>
          Resume scheduled by <VisibleText text={timer.by} />
          {timer.reason ? (
            <>
              {': '}
              <VisibleText text={timer.reason} />
            </>
          ) : null}
        </>
      );
  }
}

/** The run's automatic attempts and its timers (what an executor does next without anyone asking, and when). */
export function RunSchedule({ schedule, className, ...props }: React.ComponentProps<'div'> & { schedule: Schedule }) {
  const { attempts, timers } = schedule;
  if (!attempts && timers.length === 0) return null;
  return (
    <div data-testid="run-schedule" className={cn('space-y-1.5 rounded-md border border-dashed p-3 text-sm', className)} {...props}>
      <h2 className="text-xs font-medium text-muted-foreground">Attempts and timers</h2>
      {attempts ? (
        <p data-testid="run-attempts">
          <span className="font-medium">
            Attempt {attempts.failed} of {attempts.of} failed
          </span>
          <span className="text-muted-foreground">
            {attempts.nextAt ? (
              <>
                ; the executor tries again at <Time value={attempts.nextAt} />
              </>
            ) : attempts.failed >= attempts.of ? (
              '; no attempts left: the run waits for a person (a resume starts them afresh)'
            ) : null}
            . Last error: <VisibleText text={attempts.lastError} />
          </span>
        </p>
      ) : null}
      {timers.length > 0 ? (
        <ul className="space-y-0.5">
          {timers.map((timer) => (
            <li key={`${timer.kind}:${timer.dueAt}:${'toolCallId' in timer ? timer.toolCallId : ''}`} data-testid="run-timer" data-kind={timer.kind}>
              <Time value={timer.dueAt} className="text-xs" /> <span className="text-muted-foreground">·</span> <TimerWhat timer={timer} />
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
