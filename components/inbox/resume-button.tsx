'use client';

import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { resumeRunAction } from '@/app/(studio)/actions';
import { Button } from '@/components/ui/button';
import { useHydrated } from '@/components/ui/use-hydrated';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import { RefusalNote } from './action-feedback';

/**
 * Resumes a run in the Studio's executor (in the server, not the browser). Asks why first: the reason
 * is journaled with the operator's login (`run-resume-request`), as a cancel's is.
 */
export function ResumeButton({ runId, label = 'Resume', ...props }: React.ComponentProps<typeof Button> & { runId: string; label?: string }) {
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const reasonId = useId();
  const hydrated = useHydrated();
  const mutation = useMutation({
    mutationFn: () => resumeRunAction({ runId, reason }),
    onSuccess: (result) => {
      if (result.ok) {
        setAsking(false);
        setReason('');
      }
    },
  });
  const result = mutation.data;
  return (
    <div className="space-y-2" data-slot="resume">
      {asking ? (
        <form
          className="w-80 max-w-full space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            mutation.mutate();
          }}
        >
          <Label htmlFor={reasonId}>Why resume? (required, recorded with your login)</Label>
          <Textarea id={reasonId} name="reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={!hydrated || mutation.isPending}>
              {label}
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setAsking(false)}>
              Back
            </Button>
          </div>
        </form>
      ) : (
        <Button
          type="button"
          size="sm"
          disabled={!hydrated || mutation.isPending}
          onClick={() => {
            mutation.reset();
            setAsking(true);
          }}
          {...props}
        >
          {label}…
        </Button>
      )}
      {result?.ok ? (
        <p className="text-xs text-muted-foreground" data-testid="resume-note">
          <VisibleText text={result.resume.message} />
        </p>
      ) : result ? (
        <RefusalNote refusal={result} />
      ) : null}
      {mutation.error ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </div>
  );
}
