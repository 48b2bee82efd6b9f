'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { eraseRunAction } from '@/app/(studio)/actions';
import { ActionFailure } from '@/components/inbox/action-feedback';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import type { WireRun } from '@/lib/studio/reads/wire';
import { cn } from '@/lib/utils';

const ENDED = new Set(['completed', 'failed', 'canceled']);

/**
 * Erasure on the run page (docs/erasure.md): an erased run says so, by whom, when and why; an ended run
 * can be erased by the signed-in operator with a reason, after a confirmation that says what stays and
 * what goes. Offered only where this Studio has a journal key (`available`).
 */
export function RunErasure({ run, available, className }: { run: Pick<WireRun, 'runId' | 'status' | 'erased'>; available: boolean; className?: string }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const erase = useMutation({
    mutationFn: () => eraseRunAction({ runId: run.runId, reason }),
    onSuccess: (result) => {
      // Erasure writes no event: the page is read again for the run as it now reads.
      if (result.ok) window.location.reload();
    },
  });
  if (run.erased) {
    return (
      <div data-testid="run-erased" role="status" className={cn('rounded-lg border border-l-4 border-l-zinc-500 bg-muted/40 px-4 py-3 text-sm', className)}>
        <p className="font-medium">
          Erased {new Date(run.erased.at).toLocaleString()} by <VisibleText text={run.erased.by} />
        </p>
        <p className="text-muted-foreground">
          Why: <VisibleText text={run.erased.reason} />. Its key was destroyed: its prompt, the model’s text and its tools’ data read as “erased” for everyone.
          Its events, their times and who decided stay.
        </p>
      </div>
    );
  }
  if (!available || !ENDED.has(run.status)) return null;
  return (
    <div data-testid="run-erase" className={cn('space-y-2', className)}>
      {open ? (
        <form
          className="w-96 space-y-2 rounded-lg border p-3"
          onSubmit={(e) => {
            e.preventDefault();
            erase.mutate();
          }}
        >
          <Label htmlFor="erase-reason">Why erase? (a deletion request, its reference: recorded with the erasure)</Label>
          <Textarea id="erase-reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
          <p className="text-xs text-muted-foreground">
            This destroys the run’s key: its prompt, the model’s text and its tools’ data can never be read again, by anyone. Its events, their times and who
            decided stay. It cannot be undone.
          </p>
          <div className="flex gap-2">
            <Button type="submit" size="sm" variant="default" disabled={erase.isPending || reason.trim() === ''}>
              Erase this run’s data
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setOpen(false)}>
              Back
            </Button>
          </div>
          <ActionFailure data={erase.data} error={erase.error} />
        </form>
      ) : (
        <Button type="button" size="sm" variant="outline" onClick={() => setOpen(true)}>
          Erase…
        </Button>
      )}
    </div>
  );
}
