'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { cancelRunAction } from '@/app/(studio)/actions';
import { RefusalNote } from '@/components/inbox/action-feedback';
import { ResumeButton } from '@/components/inbox/resume-button';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import type { WireRun } from '@/lib/studio/wire';
import { cn } from '@/lib/utils';

/** What resuming will execute: approved calls run, calls marked not done run again under their key. */
function ResumePreview({ run }: { run: WireRun }) {
  const lines = run.pending.flatMap((item) => {
    const outcome = item.decision?.outcome;
    if (outcome === 'approved') return [`${item.toolName} executes (approved by ${item.decision?.by}).`];
    if (outcome === 'rejected') return [`${item.toolName} does not run; the model sees the refusal.`];
    if (outcome === 'not-done' && item.kind === 'side-effect')
      return [`${item.toolName} runs again under the same idempotency key ${item.idempotencyKey}: a service that deduplicates by it does the work once.`];
    if (outcome === 'done') return [`${item.toolName} does not run again; the output given is its result.`];
    return [];
  });
  if (lines.length === 0) return null;
  return (
    <ul className="list-inside list-disc text-xs text-muted-foreground" data-testid="resume-preview">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

/** Resume and cancel, with what each will do. Both act in the server: closing the page does not stop them. */
export function RunActions({ run, className, ...props }: React.ComponentProps<'section'> & { run: WireRun }) {
  const [canceling, setCanceling] = useState(false);
  const [reason, setReason] = useState('');
  const cancel = useMutation({ mutationFn: () => cancelRunAction({ runId: run.runId, reason }) });
  const finished = run.status === 'completed' || run.status === 'canceled';
  if (finished) return null;
  const undecided = run.pending.filter((p) => !p.decision).length;
  const resumable = (run.status === 'waiting-approval' || run.status === 'blocked') && undecided === 0 ? true : run.status === 'failed';
  return (
    <section data-testid="run-actions" className={cn('flex flex-wrap items-start gap-4 rounded-lg border p-3', className)} {...props}>
      {undecided > 0 ? (
        <p className="text-sm">
          {undecided === 1 ? 'One call waits' : `${undecided} calls wait`} for a person:{' '}
          <Link href="/inbox" className="text-link hover:underline">
            decide in the inbox
          </Link>
          .
        </p>
      ) : null}
      {run.status === 'running' ? <p className="text-sm text-muted-foreground">Executing now; the journal below follows it live.</p> : null}
      {resumable ? (
        <div className="space-y-1">
          <ResumePreview run={run} />
          <ResumeButton runId={run.runId} label={run.status === 'failed' ? 'Resume (try again)' : 'Resume'} />
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
        {cancel.data && !cancel.data.ok ? <RefusalNote refusal={cancel.data} /> : null}
      </div>
    </section>
  );
}
