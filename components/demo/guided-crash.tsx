'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { startDemoRunAction } from '@/app/(studio)/actions';
import { ActionFailure } from '@/components/inbox/action-feedback';
import { Button } from '@/components/ui/button';
import { useHydrated } from '@/components/ui/use-hydrated';
import { runHref } from '@/lib/studio/reads/run-path';

/**
 * "Try a crash inside a refund": one button instead of the form's three settings. It starts the support
 * agent without `check` on the refund prompt with the crash point after the refund was sent, and opens the
 * run with its checklist (`?guide=crash`): approve, crash, blocked, decide, completed, counters at one.
 * Where this Studio allows no crash point (on Postgres by default) it says why and stays disabled.
 */
export function GuidedCrash({ prompt, allowed, why }: { prompt: string; allowed: boolean; why?: string }) {
  const router = useRouter();
  const hydrated = useHydrated();
  // One per run started: a double click or a retried request names the same run (started once).
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const start = useMutation({
    mutationFn: () => startDemoRunAction({ prompt, requestId, crashAt: 'after-refund-answered', checks: false }),
    onSuccess: (result) => {
      if (!result.ok) return;
      setRequestId(crypto.randomUUID());
      router.push(`${runHref(result.runId)}?guide=crash`);
    },
  });
  return (
    <div className="space-y-2 rounded-lg border border-sky-500/40 bg-sky-500/5 p-4" data-testid="guided-crash">
      <h2 className="text-base font-semibold">See GNL keep a refund from running twice</h2>
      <p className="text-sm text-muted-foreground">
        One click: a refund run whose server is killed right after the refund went out and before GNL recorded it. You approve it, watch the crash, decide what
        happened, and the outside service’s counter stays at one.
      </p>
      <Button type="button" disabled={!hydrated || !allowed || start.isPending || start.data?.ok === true} onClick={() => start.mutate()}>
        {start.isPending || start.data?.ok ? 'Starting…' : 'Try a crash inside a refund'}
      </Button>
      {allowed ? null : <p className="text-xs text-muted-foreground">{why}</p>}
      <ActionFailure data={start.data} error={start.error} />
    </div>
  );
}
