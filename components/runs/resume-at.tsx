'use client';

import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { scheduleResumeAction } from '@/app/(studio)/actions';
import { RefusalNote } from '@/components/inbox/action-feedback';
import { Button } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { RunTimer } from '@/lib/durable/projection';
import { cn } from '@/lib/utils';

type ScheduledResume = Extract<RunTimer, { kind: 'resume' }>;

/**
 * A `datetime-local` value is the operator's wall-clock time, without a zone: the browser reads it in its
 * own zone (the operator's), and the server gets the instant, with its zone (ISO 8601 UTC).
 */
export function localInputToInstant(value: string): string | undefined {
  const date = new Date(value);
  return value && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

/**
 * "Resume at…": schedules the run's next invocation at a time the operator picks in their own time zone,
 * with a reason (scheduleResume: journaled with the operator's login). Shows the resume already
 * scheduled; a new time replaces it, and Resume (now) cancels it.
 */
export function ResumeAt({ runId, scheduled, className, ...props }: React.ComponentProps<'div'> & { runId: string; scheduled: ScheduledResume | undefined }) {
  const [asking, setAsking] = useState(false);
  const [when, setWhen] = useState('');
  const [reason, setReason] = useState('');
  const whenId = useId();
  const reasonId = useId();
  const mutation = useMutation({
    mutationFn: () => scheduleResumeAction({ runId, at: localInputToInstant(when) ?? '', reason }),
    onSuccess: (result) => {
      if (result.ok) {
        setAsking(false);
        setReason('');
      }
    },
  });
  const result = mutation.data;
  return (
    <div className={cn('space-y-2', className)} data-testid="resume-at" {...props}>
      {scheduled ? (
        <p className="text-xs" data-testid="resume-at-scheduled">
          Resume scheduled for <Time value={scheduled.dueAt} /> by <VisibleText text={scheduled.by} />
          {scheduled.reason ? (
            <>
              {': '}
              <VisibleText text={scheduled.reason} />
            </>
          ) : null}
          <span className="block text-muted-foreground">A new time replaces it; Resume (now) cancels it.</span>
        </p>
      ) : null}
      {asking ? (
        <form
          className="w-80 max-w-full space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            mutation.mutate();
          }}
        >
          <Label htmlFor={whenId}>When? (your time zone: {Intl.DateTimeFormat().resolvedOptions().timeZone})</Label>
          <Input id={whenId} type="datetime-local" value={when} onChange={(e) => setWhen(e.target.value)} data-testid="resume-at-when" />
          <Label htmlFor={reasonId}>Why then? (required, recorded with your login)</Label>
          <Textarea id={reasonId} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="resume-at-reason" />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={mutation.isPending} data-testid="resume-at-submit">
              {scheduled ? 'Replace the scheduled resume' : 'Schedule the resume'}
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
          variant="outline"
          data-testid="resume-at-open"
          onClick={() => {
            mutation.reset();
            setAsking(true);
          }}
        >
          {scheduled ? 'Change the time…' : 'Resume at…'}
        </Button>
      )}
      {result && !result.ok ? <RefusalNote refusal={result} /> : null}
      {mutation.error ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </div>
  );
}
