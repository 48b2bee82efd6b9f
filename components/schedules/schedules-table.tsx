import Link from 'next/link';
import { RunStatusBadge } from '@/components/runs/run-status-badge';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { RunStatus } from '@/lib/durable';
import type { ScheduleView } from '@/lib/executor';
import { runHref } from '@/lib/studio/reads/run-path';
import { cn } from '@/lib/utils';
import { ScheduleActions } from './schedule-actions';

const ACTION_WORD = { pause: 'Paused', unpause: 'Unpaused', 'run-now': 'Run now', 'overlap-skip': 'Skipped' } as const;

/** The schedule's recent operator actions and overlap skips, newest first: who, when, why (text from the database: rendered as text). */
function RecentActions({ actions }: { actions: ScheduleView['recentActions'] }) {
  if (actions.length === 0) return null;
  return (
    <ul className="mt-1 space-y-0.5 text-xs text-muted-foreground" data-testid="schedule-audit">
      {actions.slice(0, 3).map((a) => (
        <li key={a.id} data-testid="schedule-audit-entry" data-action={a.action}>
          {ACTION_WORD[a.action]}
          {a.action === 'overlap-skip' && a.slot ? (
            <>
              {' '}
              the slot <Time value={a.slot} />
            </>
          ) : null}{' '}
          by <VisibleText text={a.by} />, <Time value={a.at} />
          {a.reason ? (
            <>
              : <VisibleText text={a.reason} />
            </>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** The schedules, one row each: timing, pause, next slot, last slot decided, its most recent runs (links, newest first) and the operator's actions. */
export function SchedulesTable({ schedules, className, ...props }: React.ComponentProps<'div'> & { schedules: ScheduleView[] }) {
  return (
    <div className={cn('rounded-md border', className)} {...props}>
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>Schedule</TableHead>
            <TableHead>Agent</TableHead>
            <TableHead>Cron</TableHead>
            <TableHead>Missed slots</TableHead>
            <TableHead>Next slot</TableHead>
            <TableHead>Last slot</TableHead>
            <TableHead>Recent runs</TableHead>
            <TableHead>Operator</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {schedules.map((s) => (
            <TableRow key={s.id} data-testid="schedule-row" data-schedule-id={s.id}>
              <TableCell className="font-mono text-xs">
                <VisibleText text={s.id} />
                {s.declared ? null : <div className="font-sans text-muted-foreground">not declared by this deployment</div>}
                {s.paused ? (
                  <div className="font-sans font-medium text-foreground" data-testid="schedule-paused">
                    Paused by <VisibleText text={s.paused.by} />, <Time value={s.paused.at} />
                    {s.paused.reason ? (
                      <>
                        : <VisibleText text={s.paused.reason} />
                      </>
                    ) : null}
                  </div>
                ) : null}
              </TableCell>
              <TableCell>
                <VisibleText text={s.agent} />
              </TableCell>
              <TableCell className="font-mono text-xs">
                <VisibleText text={s.cron} /> <span className="font-sans text-muted-foreground">({<VisibleText text={s.timeZone} />})</span>
              </TableCell>
              <TableCell className="text-xs">
                {s.missed}
                <div className="text-muted-foreground" data-testid="schedule-overlap">
                  overlap: {s.overlap === 'skip' ? 'skip while the last slot’s run is open' : 'allow'}
                </div>
                {s.lastMissed ? (
                  <div className="text-muted-foreground" data-testid="schedule-missed">
                    last missed <Time value={s.lastMissed.first} /> … <Time value={s.lastMissed.last} />
                  </div>
                ) : null}
              </TableCell>
              <TableCell className="text-xs" data-testid="schedule-next">
                {s.nextSlot ? <Time value={s.nextSlot} /> : 'never'}
              </TableCell>
              <TableCell className="text-xs">{s.lastSlot ? <Time value={s.lastSlot} /> : s.since ? 'none yet' : 'not ticked yet'}</TableCell>
              <TableCell>
                {s.recentRuns.length === 0 ? (
                  <span className="text-xs text-muted-foreground">none</span>
                ) : (
                  <ul className="space-y-1">
                    {s.recentRuns.map((run) => (
                      <li key={run.runId} className="flex items-center gap-2 text-xs">
                        <RunStatusBadge status={run.status as RunStatus} />
                        <Link href={runHref(run.runId)} className="font-mono hover:underline" data-testid="schedule-run-link">
                          <VisibleText text={run.runId} />
                        </Link>
                      </li>
                    ))}
                  </ul>
                )}
              </TableCell>
              <TableCell>
                <ScheduleActions scheduleId={s.id} paused={s.paused !== null} declared={s.declared} />
                <RecentActions actions={s.recentActions} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
