'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, useState } from 'react';
import { runScheduleNowAction, setSchedulePausedAction } from '@/app/(studio)/actions';
import { RefusalNote } from '@/components/inbox/action-feedback';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { runHref } from '@/lib/studio/reads/run-path';
import { VisibleText } from '@/components/ui/visible-text';
import { newRequestId } from '@/components/request-id';

type Asking = 'pause' | 'unpause' | 'run-now' | undefined;

const PROMPT = {
  pause: { label: 'Why pause? (recorded; no executor starts its slots until it is unpaused)', submit: 'Pause the schedule' },
  unpause: { label: 'Why unpause? (recorded; the slots of the pause are not started, the next one is)', submit: 'Unpause the schedule' },
  'run-now': { label: 'Why run it now? (recorded; one extra run with the schedule’s input, outside its slots)', submit: 'Start one run now' },
} as const;

/**
 * Pause / unpause a schedule and start one extra run now, each with a required reason, in the signed-in
 * operator's name (audited). A run-now form carries one request id from when it opens, so a double
 * click or a retried request makes one run; the page is read again after each action.
 */
export function ScheduleActions({ scheduleId, paused, declared }: { scheduleId: string; paused: boolean; declared: boolean }) {
  const router = useRouter();
  const [asking, setAsking] = useState<Asking>();
  const [reason, setReason] = useState('');
  const [requestId, setRequestId] = useState('');
  const reasonId = useId();
  const mutation = useMutation({
    mutationFn: async (what: Exclude<Asking, undefined>) =>
      what === 'run-now' ? runScheduleNowAction({ scheduleId, requestId, reason }) : setSchedulePausedAction({ scheduleId, paused: what === 'pause', reason }),
    onSuccess: (result) => {
      if (!result.ok) return;
      setAsking(undefined);
      setReason('');
      router.refresh();
    },
  });
  const open = (what: Exclude<Asking, undefined>) => {
    mutation.reset();
    setReason('');
    if (what === 'run-now') setRequestId(newRequestId());
    setAsking(what);
  };
  const result = mutation.data;
  return (
    <div className="space-y-2" data-testid="schedule-actions">
      {asking ? (
        <form
          className="w-72 space-y-2"
          data-testid="schedule-action-form"
          onSubmit={(e) => {
            e.preventDefault();
            mutation.mutate(asking);
          }}
        >
          <Label htmlFor={reasonId}>{PROMPT[asking].label}</Label>
          <Textarea id={reasonId} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="schedule-action-reason" />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={mutation.isPending} data-testid="schedule-action-submit">
              {PROMPT[asking].submit}
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setAsking(undefined)}>
              Back
            </Button>
          </div>
        </form>
      ) : (
        <div className="flex flex-wrap gap-2">
          <Button
            type="button"
            size="sm"
            variant="outline"
            onClick={() => open(paused ? 'unpause' : 'pause')}
            data-testid={paused ? 'schedule-unpause' : 'schedule-pause'}
          >
            {paused ? 'Unpause…' : 'Pause…'}
          </Button>
          {declared ? (
            <Button type="button" size="sm" variant="outline" onClick={() => open('run-now')} data-testid="schedule-run-now">
              Run now…
            </Button>
          ) : null}
        </div>
      )}
      {result?.ok && 'runId' in result ? (
        <p className="text-xs text-muted-foreground" data-testid="schedule-run-now-result">
          {result.created ? 'Started ' : 'Already started by this request: '}
          <Link href={runHref(result.runId)} className="font-mono hover:underline">
            <VisibleText text={result.runId} />
          </Link>
        </p>
      ) : null}
      {result && !result.ok ? <RefusalNote refusal={result} /> : null}
      {mutation.error ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </div>
  );
}
