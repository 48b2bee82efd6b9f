'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { startDemoWorkflowAction } from '@/app/(studio)/actions';
import { RefusalNote } from '@/components/inbox/action-feedback';
import { Button } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { runHref } from '@/lib/studio/reads/run-path';

/**
 * Starts the demo support-flow workflow (agents/support-flow.ts): the support agent as a child run, then
 * a wait for the customer's reply that the run page's form answers. Opens the new run's page.
 */
export function DemoWorkflowForm({ defaultMessage }: { defaultMessage: string }) {
  const router = useRouter();
  const [customerId, setCustomerId] = useState('c_42');
  const [message, setMessage] = useState(defaultMessage);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  // One per run started: a double click or a retried request names the same run (started once).
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const start = useMutation({
    mutationFn: () => startDemoWorkflowAction({ customerId, message, requestId }),
    onSuccess: (result) => {
      if (!result.ok) return;
      setRequestId(crypto.randomUUID());
      router.push(runHref(result.runId));
    },
  });
  return (
    <form
      className="space-y-3"
      data-testid="demo-workflow-form"
      data-hydrated={hydrated ? 'true' : undefined}
      onSubmit={(e) => {
        e.preventDefault();
        start.mutate();
      }}
    >
      <div className="grid gap-2 sm:grid-cols-[8rem_1fr]">
        <div className="space-y-1">
          <Label htmlFor="flow-customer">Customer</Label>
          <Input id="flow-customer" value={customerId} onChange={(e) => setCustomerId(e.target.value)} maxLength={64} />
        </div>
        <div className="space-y-1">
          <Label htmlFor="flow-message">Their message</Label>
          <Textarea id="flow-message" rows={2} value={message} onChange={(e) => setMessage(e.target.value)} maxLength={4000} />
        </div>
      </div>
      <Button type="submit" disabled={!hydrated || start.isPending}>
        Start the support workflow
      </Button>
      {start.data && !start.data.ok ? <RefusalNote refusal={start.data} /> : null}
      {start.error ? <RefusalNote refusal={{ ok: false, kind: 'error', message: start.error.message }} /> : null}
    </form>
  );
}
