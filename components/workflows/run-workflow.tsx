import Link from 'next/link';
import { RunStatusBadge } from '@/components/runs/run-status-badge';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { WaitingFor } from '@/lib/durable';
import { runHref } from '@/lib/studio/reads/run-path';
import type { WorkflowView } from '@/lib/studio/reads/workflow-view';
import { RefreshOnRunChange } from './refresh-on-change';
import { SendEventForm } from './send-event-form';

/** One open wait as a sentence, and for an event the form that sends it (names come from the journal: rendered as text). */
function Wait({ runId, wait, schema }: { runId: string; wait: WaitingFor; schema: unknown }) {
  if (wait.kind === 'sleep')
    return (
      <p data-testid="workflow-wait">
        Sleeping until <Time value={wait.until} /> (step <VisibleText text={wait.name} />
        ): it wakes by itself, on any worker.
      </p>
    );
  if (wait.kind === 'children')
    return (
      <p data-testid="workflow-wait">
        Waiting for {wait.runIds.length} child run{wait.runIds.length === 1 ? '' : 's'} (step <VisibleText text={wait.name} />
        ): it goes on when they settle.
      </p>
    );
  return (
    <div className="space-y-2" data-testid="workflow-wait">
      <p>
        Waiting for the event “<VisibleText text={wait.event} />”
        {wait.timeoutAt ? (
          <>
            {' '}
            until <Time value={wait.timeoutAt} /> (then the workflow goes on without it)
          </>
        ) : null}
        .
      </p>
      <SendEventForm runId={runId} event={wait.event} schema={schema} />
    </div>
  );
}

/** A workflow run's waits, the run that started it and its children, each linked (docs/workflows.md). */
export function RunWorkflow({ runId, view, renderedSeq }: { runId: string; view: WorkflowView; renderedSeq: number }) {
  return (
    <section data-testid="run-workflow" className="space-y-2 rounded-md border p-3 text-sm">
      <RefreshOnRunChange runId={runId} renderedSeq={renderedSeq} />
      <h2 className="text-xs font-medium text-muted-foreground">
        {view.workflow ? (
          <>
            Workflow <VisibleText text={view.workflow} />
          </>
        ) : (
          'Child run'
        )}
      </h2>
      {view.parent ? (
        <p data-testid="workflow-parent">
          Started by run{' '}
          <Link href={runHref(view.parent.runId)} className="font-mono wrap-anywhere text-link hover:underline">
            <VisibleText text={view.parent.runId} />
          </Link>{' '}
          {view.parent.status ? <RunStatusBadge status={view.parent.status} /> : null}
        </p>
      ) : null}
      {view.waits.map((wait) => (
        <Wait key={wait.waitId} runId={runId} wait={wait} schema={wait.kind === 'event' ? view.eventSchemas[wait.event] : undefined} />
      ))}
      {view.children.length > 0 ? (
        <div>
          <h3 className="text-xs text-muted-foreground">Child runs</h3>
          <ul data-testid="workflow-children" className="space-y-0.5">
            {view.children.map((child) => (
              <li key={child.runId} className="flex flex-wrap items-center gap-2">
                <Link href={runHref(child.runId)} className="font-mono wrap-anywhere text-link hover:underline">
                  <VisibleText text={child.runId} />
                </Link>
                <span className="text-muted-foreground">
                  {child.kind} <VisibleText text={child.name} />
                </span>
                {child.status ? <RunStatusBadge status={child.status} /> : <span className="text-muted-foreground">not started</span>}
              </li>
            ))}
          </ul>
          {view.truncated ? <p className="text-xs text-muted-foreground">More child runs than listed here: gnl tree lists them all.</p> : null}
        </div>
      ) : null}
    </section>
  );
}
