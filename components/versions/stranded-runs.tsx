import Link from 'next/link';
import { RunStatusBadge } from '@/components/runs/run-status-badge';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { runHref } from '@/lib/studio/reads/run-path';
import type { StrandedRun } from '@/lib/studio/reads/versions';
import { cn } from '@/lib/utils';
import { migrateHref } from './migrate-href';

/** Runs no registered version continues, each with what differs from the current version and a way to preview its migration. */
export function StrandedRuns({ runs, className, ...props }: React.ComponentProps<'ul'> & { runs: readonly StrandedRun[] }) {
  if (runs.length === 0) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="stranded-none">
        No open run is stranded: every one runs on a registered version, or is taken over by one.
      </p>
    );
  }
  return (
    <ul className={cn('space-y-3', className)} data-testid="stranded-runs" {...props}>
      {runs.map((run) => (
        <li key={run.runId} className="space-y-2 rounded-lg border p-3" data-testid="stranded-run" data-run-id={run.runId}>
          <div className="flex flex-wrap items-center gap-3">
            <Link href={runHref(run.runId)} className="font-mono text-sm font-medium wrap-anywhere text-link hover:underline">
              <VisibleText text={run.runId} />
            </Link>
            <RunStatusBadge status={run.status} />
            <span className="text-xs text-muted-foreground">
              <VisibleText text={run.agent} /> version <code className="font-mono">{run.version ? <VisibleText text={run.version} /> : '?'}</code>, current{' '}
              <code className="font-mono">
                <VisibleText text={run.current} />
              </code>{' '}
              · updated <Time value={run.updatedAt} />
            </span>
            <Link href={migrateHref(run.runId, run.current)} className="ml-auto text-sm text-link hover:underline" data-testid="preview-migration">
              Preview migration
            </Link>
          </div>
          <ul className="space-y-1 text-xs">
            {run.because.map((why) => (
              <li key={why} className="text-muted-foreground">
                <VisibleText text={why} />
              </li>
            ))}
          </ul>
          <details className="text-xs">
            <summary className="cursor-pointer text-muted-foreground">What differs ({run.differences.map((d) => d.field).join(', ')})</summary>
            <dl className="mt-2 space-y-2">
              {run.differences.map((d) => (
                <div key={d.field} data-testid="stranded-difference">
                  <dt className="font-medium">
                    <VisibleText text={d.field} />
                  </dt>
                  <dd className="grid gap-1 sm:grid-cols-2">
                    <pre className="overflow-x-auto rounded bg-muted p-2 whitespace-pre-wrap wrap-anywhere">
                      recorded: <VisibleText text={d.recorded} />
                    </pre>
                    <pre className="overflow-x-auto rounded bg-muted p-2 whitespace-pre-wrap wrap-anywhere">
                      deployed: <VisibleText text={d.given} />
                    </pre>
                  </dd>
                </div>
              ))}
            </dl>
          </details>
        </li>
      ))}
    </ul>
  );
}
