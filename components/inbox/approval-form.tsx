'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { approveAction, type DecisionResult, rejectAction } from '@/app/(studio)/actions';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { RefusalNote } from './action-feedback';

/** Approve, or reject with a reason the model will see (as the tool's result). */
export function ApprovalForm({ runId, toolCallId, onDecided }: { runId: string; toolCallId: string; onDecided: (result: DecisionResult) => void }) {
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const mutation = useMutation({
    mutationFn: (kind: 'approve' | 'reject') => (kind === 'approve' ? approveAction({ runId, toolCallId }) : rejectAction({ runId, toolCallId, reason })),
    onSuccess: (result) => {
      if (result.ok || result.kind === 'conflict') onDecided(result);
    },
  });
  const result = mutation.data;
  return (
    <div className="space-y-2" data-slot="approval-form">
      {rejecting ? (
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            mutation.mutate('reject');
          }}
        >
          <Label htmlFor={`reject-${toolCallId}`}>Why not? The model sees this reason as the tool’s answer.</Label>
          <Textarea id={`reject-${toolCallId}`} name="reason" rows={2} required value={reason} onChange={(e) => setReason(e.target.value)} />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={mutation.isPending || reason.trim() === ''}>
              Reject
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setRejecting(false)}>
              Back
            </Button>
          </div>
        </form>
      ) : (
        <div className="flex gap-2">
          <Button type="button" size="sm" data-key-action="approve" disabled={mutation.isPending} onClick={() => mutation.mutate('approve')}>
            Approve
          </Button>
          <Button type="button" size="sm" variant="outline" data-key-action="reject" disabled={mutation.isPending} onClick={() => setRejecting(true)}>
            Reject…
          </Button>
        </div>
      )}
      {result && !result.ok && result.kind !== 'conflict' ? <RefusalNote refusal={result} /> : null}
      {mutation.error ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </div>
  );
}
