import Link from 'next/link';
import { RunStatusBadge } from '@/components/runs/run-status-badge';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { RunStatus } from '@/lib/durable';
import type { ScheduleView } from '@/lib/executor';
import { runHref } from '@/lib/studio/reads/run-path';
import { cn } from '@/lib/utils';

/** The schedules, one row each: timing, next slot, last slot decided, and its most recent runs (links), newest first. */
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
          </TableRow>
        </TableHeader>
        <TableBody>
          {schedules.map((s) => (
            <TableRow key={s.id} data-testid="schedule-row" data-schedule-id={s.id}>
              <TableCell className="font-mono text-xs">
                <VisibleText text={s.id} />
                {s.declared ? null : <div className="font-sans text-muted-foreground">not declared by this deployment</div>}
              </TableCell>
              <TableCell>
                <VisibleText text={s.agent} />
              </TableCell>
              <TableCell className="font-mono text-xs">
                <VisibleText text={s.cron} /> <span className="font-sans text-muted-foreground">({<VisibleText text={s.timeZone} />})</span>
              </TableCell>
              <TableCell className="text-xs">
                {s.missed}
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
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
