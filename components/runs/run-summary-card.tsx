import Link from 'next/link';
import { Time } from '@/components/ui/time';
import { runHref } from '@/lib/studio/reads/run-path';
import type { WireRun } from '@/lib/studio/reads/wire';
import { cn } from '@/lib/utils';
import { JsonPayload } from './json-payload';
import { RunModel } from './run-model';
import { RunPendingReason } from './run-pending-reason';
import { RunStatusBadge } from './run-status-badge';
import { VisibleText } from '@/components/ui/visible-text';

export function RunSummaryCard({ run, className, children, ...props }: React.ComponentProps<'section'> & { run: WireRun }) {
  const { prompt, messages, system, toolNames } = run.input ?? {};
  return (
    <section data-testid="run-summary" className={cn('space-y-4 rounded-lg border p-4', className)} {...props}>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-3 lg:grid-cols-6">
        <Field label="Status">
          <RunStatusBadge status={run.status} />
        </Field>
        <Field label="Model">
          <RunModel input={run.input} />
        </Field>
        <Field label="Steps">
          <span className="tabular-nums">{run.stepCount}</span>
        </Field>
        <Field label="Events">
          <span className="tabular-nums">{run.lastSeq}</span>
        </Field>
        <Field label="Created">
          <Time value={run.createdAt} className="text-xs" />
        </Field>
        <Field label="Updated">
          <Time value={run.updatedAt} className="text-xs" />
        </Field>
      </dl>
      {run.input?.forkOf ? (
        <p className="text-sm" data-slot="run-fork-of">
          Fork of{' '}
          <Link href={runHref(run.input.forkOf.runId)} className="text-link hover:underline">
            <VisibleText text={run.input.forkOf.runId} />
          </Link>{' '}
          at step {run.input.forkOf.atStep}, by <VisibleText text={run.input.forkOf.by} />: “<VisibleText text={run.input.forkOf.reason} />”
        </p>
      ) : null}
      {run.pending.length > 0 ? (
        <div className="rounded-md border border-dashed p-3">
          <h2 className="mb-1.5 text-xs font-medium text-muted-foreground">Waiting on</h2>
          <RunPendingReason pending={run.pending} />
        </div>
      ) : null}
      <div className="grid gap-3 lg:grid-cols-2">
        {system !== undefined ? <SystemPrompt system={system} /> : null}
        {prompt !== undefined ? <Labelled label="Prompt">{<JsonPayload value={prompt} />}</Labelled> : null}
        {messages !== undefined ? <Labelled label="Messages">{<JsonPayload value={messages} />}</Labelled> : null}
        {toolNames?.length ? (
          <Labelled label="Tools">
            <p className="font-mono text-xs wrap-break-word">
              <VisibleText text={toolNames.join(', ')} />
            </p>
          </Labelled>
        ) : null}
      </div>
      {children}
    </section>
  );
}

/** The system prompt, folded to its first line: it is the same for every run of an agent and would take half the screen (issue 32). */
function SystemPrompt({ system }: { system: unknown }) {
  const text = typeof system === 'string' ? system : JSON.stringify(system);
  const first = (text ?? '').trim().split(/\r?\n/, 1)[0] ?? '';
  return (
    <details className="min-w-0 space-y-1 lg:col-span-2" data-slot="run-system">
      <summary className="cursor-pointer text-xs text-muted-foreground">
        <span className="font-medium">System prompt</span> ({(text ?? '').length.toLocaleString('en')} characters):{' '}
        <VisibleText text={first.length > 100 ? `${first.slice(0, 100)}…` : first} />
      </summary>
      <JsonPayload value={system} />
    </details>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="mt-1">{children}</dd>
    </div>
  );
}

function Labelled({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <h2 className="mb-1 text-xs font-medium text-muted-foreground">{label}</h2>
      {children}
    </div>
  );
}
