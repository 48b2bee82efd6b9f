'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { cancelRunAction } from '@/app/(studio)/actions';
import { ActionFailure } from '@/components/inbox/action-feedback';
import { ResumeButton } from '@/components/inbox/resume-button';
import { DecisionNotes, useDecisionOutcomes } from '@/components/inbox/decision-outcomes';
import { RunDecisions } from '@/components/inbox/run-decisions';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import type { RunTimer } from '@/lib/durable/projection';
import type { PreviewAction, PreviewCall } from '@/lib/studio/reads/resume-preview';
import type { WireRun } from '@/lib/studio/reads/wire';
import { findHidden } from '@/lib/text';
import { cn } from '@/lib/utils';
import { payloadString } from './payload-text';
import { ResumeAt } from './resume-at';
import { HiddenCharsWarning, VisibleText } from '@/components/ui/visible-text';
import { Time } from '@/components/ui/time';

const ACTION_LABEL: Record<PreviewAction, string> = {
  executes: 'executes',
  'executes-again': 'executes again',
  'checked-first': 'checked first',
  blocks: 'blocks the run',
  'not-run': 'does not run',
  waits: 'waits',
  'asks-policy': 'asks its approval policy first',
  depends: 'depends on its declaration',
};

/**
 * What resuming will execute: each call that runs (for the first time or again) or is settled, why, and
 * whether its idempotency key protects a repeat, as far as GNL can know (resume-preview.ts).
 */
function ResumePreview({ calls }: { calls: readonly PreviewCall[] }) {
  const running = calls.filter((c) => c.action === 'executes' || c.action === 'executes-again' || c.action === 'checked-first').length;
  return (
    <div className="max-w-3xl space-y-1.5 text-xs" data-testid="resume-preview">
      <p className="font-medium">
        {running === 0
          ? 'Resuming executes no tool call again; the model continues.'
          : `Resuming executes ${running === 1 ? 'one tool call' : `${running} tool calls`}:`}
      </p>
      {calls.length > 0 ? (
        <ul className="space-y-1.5">
          {calls.map((call) => (
            <li key={`${call.toolCallId}:${call.idempotencyKey ?? ''}`} data-testid="resume-preview-call" data-action={call.action} data-tool={call.toolName}>
              <code className="font-mono font-medium">
                <VisibleText text={call.toolName} />
              </code>{' '}
              <span className="font-medium">{ACTION_LABEL[call.action]}</span>
              <span className="text-muted-foreground">
                {' '}
                — <VisibleText text={call.why} />.
              </span>
              {call.protection ? (
                <span className="block text-muted-foreground wrap-anywhere">
                  <VisibleText text={call.protection} />
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Resume and cancel, with what each will do. Both act in the server: closing the page does not stop them. */
export function RunActions({
  run,
  preview,
  timers = [],
  resuming,
  className,
  ...props
}: React.ComponentProps<'section'> & {
  run: WireRun;
  preview: readonly PreviewCall[] /** The run's timers: a scheduled resume is shown beside Resume at…. */;
  timers?: readonly RunTimer[];
  /** A resume asked for and not begun yet (the projection's `resumeRequested`): shown instead of the Resume button. */
  resuming?: { by: string; at: number };
}) {
  const [canceling, setCanceling] = useState(false);
  const [reason, setReason] = useState('');
  const cancel = useMutation({ mutationFn: () => cancelRunAction({ runId: run.runId, reason }) });
  // Held here, not in the list of choices: a run decided here may finish before the answer is read.
  const outcomes = useDecisionOutcomes();
  const finished = run.status === 'completed' || run.status === 'canceled';
  if (finished) {
    const told = outcomes.recent.length + outcomes.conflicts.length + outcomes.lost.length > 0;
    return told ? (
      <section data-testid="run-actions" className={cn('space-y-3 rounded-lg border p-3', className)} {...props}>
        <DecisionNotes outcomes={outcomes} again={() => null} />
      </section>
    ) : null;
  }
  const open = run.pending.filter((p) => !p.decision);
  const undecided = open.length;
  const hidden = findHidden(open.map((p) => payloadString(p.input)).join('\n'));
  const waiting = run.status === 'waiting-approval' || run.status === 'waiting-tool-result' || run.status === 'blocked';
  const resumable = waiting && undecided === 0 ? true : run.status === 'failed';
  return (
    <section data-testid="run-actions" className={cn('flex flex-wrap items-start gap-4 rounded-lg border p-3', className)} {...props}>
      {undecided > 0 ? (
        <p className="text-sm">
          {undecided === 1 ? 'One call waits' : `${undecided} calls wait`} for a person: decide here or{' '}
          <Link href="/inbox" className="text-link hover:underline">
            in the inbox
          </Link>
          .
        </p>
      ) : null}
      <RunDecisions run={run} outcomes={outcomes} className="basis-full" />
      {undecided > 0 ? (
        <HiddenCharsWarning found={hidden} what={undecided === 1 ? 'Its arguments' : 'Their arguments'} className="basis-full" data-slot="run-hidden-chars" />
      ) : null}
      {run.status === 'running' ? <p className="text-sm text-muted-foreground">Executing now; the journal below follows it live.</p> : null}
      {resumable && resuming ? (
        <p className="text-sm" data-testid="run-resuming">
          Resuming: <VisibleText text={resuming.by} /> asked <Time value={new Date(resuming.at).toISOString()} className="text-muted-foreground" />; the
          executor takes the run up, and the journal below shows it go on.
        </p>
      ) : resumable ? (
        <div className="space-y-1">
          <ResumePreview calls={preview} />
          <div className="flex flex-wrap items-start gap-3">
            <ResumeButton runId={run.runId} label={run.status === 'failed' ? 'Resume (try again)' : 'Resume'} />
            <ResumeAt runId={run.runId} scheduled={timers.find((t): t is Extract<RunTimer, { kind: 'resume' }> => t.kind === 'resume')} />
          </div>
        </div>
      ) : null}
      <div className="ml-auto space-y-2">
        {canceling ? (
          <form
            className="w-80 space-y-2"
            onSubmit={(e) => {
              e.preventDefault();
              cancel.mutate();
            }}
          >
            <Label htmlFor="cancel-reason">Why cancel? (recorded; the run stops at its next step boundary and never executes another tool)</Label>
            <Textarea id="cancel-reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
            <div className="flex gap-2">
              <Button type="submit" size="sm" disabled={cancel.isPending}>
                Cancel the run
              </Button>
              <Button type="button" size="sm" variant="ghost" onClick={() => setCanceling(false)}>
                Back
              </Button>
            </div>
          </form>
        ) : (
          <Button type="button" size="sm" variant="outline" onClick={() => setCanceling(true)}>
            Cancel…
          </Button>
        )}
        <ActionFailure data={cancel.data} error={cancel.error} />
      </div>
    </section>
  );
}
