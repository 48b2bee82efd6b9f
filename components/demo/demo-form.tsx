'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { startDemoRunAction } from '@/app/(studio)/actions';
import { ActionFailure } from '@/components/inbox/action-feedback';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import type { CrashPoint } from '@/lib/demo';
import { runHref } from '@/lib/studio/reads/run-path';

const CRASH_CHOICES: { value: CrashPoint | ''; label: string }[] = [
  { value: '', label: 'No crash' },
  { value: 'after-ticket-created', label: 'after the ticket was created' },
  { value: 'after-refund-answered', label: 'after the refund was sent (before its result is recorded)' },
  { value: 'after-email-sent', label: 'after the email was sent' },
];

/**
 * Starts the demo support agent on a prompt, executed by the Studio's server; opens the new run's page.
 * Where crash points are off the choice is disabled (the server refuses one anyway). `checks`: whether
 * this Studio's support agent has `check` at all (GNL_DEMO_CHECKS); where it has, a run can start without.
 */
export function DemoForm({
  defaultPrompt,
  crashPointsAllowed = true,
  checks = true,
}: {
  defaultPrompt: string;
  crashPointsAllowed?: boolean;
  checks?: boolean;
}) {
  const router = useRouter();
  const [prompt, setPrompt] = useState(defaultPrompt);
  const [crashAt, setCrashAt] = useState<CrashPoint | ''>('');
  const [withCheck, setWithCheck] = useState(checks);
  const [fourEyes, setFourEyes] = useState(false);
  // Typed before the page hydrated, a prompt would be lost (the state keeps the default): the form says
  // when it listens, and cannot be sent before (tests wait for data-hydrated).
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  // One per run started: a double click or a retried request names the same run (started once).
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const start = useMutation({
    mutationFn: () =>
      startDemoRunAction({
        prompt,
        requestId,
        ...(crashAt ? { crashAt } : {}),
        ...(checks && !withCheck ? { checks: false } : {}),
        ...(fourEyes ? { fourEyes } : {}),
      }),
    onSuccess: (result) => {
      if (!result.ok) return;
      setRequestId(crypto.randomUUID());
      router.push(runHref(result.runId));
    },
  });
  return (
    <form
      className="space-y-3"
      data-testid="demo-form"
      data-hydrated={hydrated ? 'true' : undefined}
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate();
      }}
    >
      <div className="space-y-1">
        <Label htmlFor="demo-prompt">What the customer asks</Label>
        <Textarea id="demo-prompt" name="prompt" rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
      </div>
      <div className="space-y-1">
        <Label htmlFor="demo-crash">Crash point: the Studio’s server kills itself (SIGKILL) there, once; it restarts and the run goes on</Label>
        <select
          id="demo-crash"
          name="crashAt"
          className="h-9 w-full rounded-md border bg-background px-2 text-sm"
          value={crashAt}
          disabled={!crashPointsAllowed}
          onChange={(e) => setCrashAt(e.target.value as CrashPoint | '')}
        >
          {CRASH_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      <div className="space-y-1" data-testid="demo-check">
        <label className="flex items-center gap-2 text-sm font-medium">
          <input type="checkbox" name="checks" checked={checks && withCheck} disabled={!checks} onChange={(e) => setWithCheck(e.target.checked)} />
          <span>
            Give <code className="font-mono">issueRefund</code> and <code className="font-mono">sendEmail</code> a <code className="font-mono">check</code>
          </span>
        </label>
        <p className="text-xs text-muted-foreground">
          After a crash between sending and recording, <code className="font-mono">check</code> asks the outside service whether the work under the call’s
          idempotency key happened, and the run goes on by itself; without it the run is <strong>blocked</strong> until a person says whether it happened (try
          it with the crash point after the refund).
          {checks ? '' : ' Here the support agent has no check at all (GNL_DEMO_CHECKS is off): such a crash blocks every run.'}
        </p>
      </div>
      <div className="space-y-1" data-testid="demo-four-eyes">
        <label className="flex items-center gap-2 text-sm font-medium">
          <input type="checkbox" name="fourEyes" checked={fourEyes} onChange={(e) => setFourEyes(e.target.checked)} />
          <span>Four eyes on refunds</span>
        </label>
        <p className="text-xs text-muted-foreground">
          The refund waits for an approver who neither started this run nor changed the refund’s arguments: you may propose other arguments, and another person
          approves them (the approval rule of <code className="font-mono">support-four-eyes</code>).
        </p>
      </div>
      <Button type="submit" disabled={!hydrated || start.isPending || start.data?.ok === true}>
        {start.isPending || start.data?.ok ? 'Starting…' : 'Start a demo run'}
      </Button>
      <ActionFailure data={start.data} error={start.error} />
    </form>
  );
}
