'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { createContext, useContext, useState } from 'react';
import { forkPreviewAction, forkRunAction } from '@/app/(studio)/actions';
import { RefusalNote } from '@/components/inbox/action-feedback';
import { PayloadText } from '@/components/runs/payload-text';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import type { ForkPreview } from '@/lib/studio/actions/fork-actions';
import { encodeRunSegment } from '@/lib/studio/reads/run-path';

const OUTCOME = { done: 'done in the parent', error: 'failed in the parent', unknown: 'outcome unknown in the parent', inherited: 'inherited by the parent' };

/** The run whose timeline this is, for the "Fork from here" of each model step (run-view.tsx provides it). */
export const ForkTarget = createContext<string | undefined>(undefined);

/** "Fork from here" for the journal's step `step` (0-based), where a run page provides the run; nothing elsewhere. */
export function ForkFromStepSlot({ step }: { step: number }) {
  const runId = useContext(ForkTarget);
  return runId === undefined ? null : <ForkFromStep runId={runId} atStep={step + 1} />;
}

/**
 * "Fork from here" on a model step: asks the server for the fork's preview (what it keeps, each side
 * effect that could act again and its key), takes a reason (recorded) and an optional instruction, forks
 * in the signed-in operator's name and opens the new run. Untrusted values are rendered as text.
 */
export function ForkFromStep({ runId, atStep }: { runId: string; atStep: number }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [instruction, setInstruction] = useState('');
  const preview = useMutation({ mutationFn: () => forkPreviewAction({ runId, atStep, ...(instruction.trim() ? { instruction } : {}) }) });
  const fork = useMutation({
    mutationFn: () => forkRunAction({ runId, atStep, reason, ...(instruction.trim() ? { instruction } : {}) }),
    onSuccess: (result) => {
      if (result.ok) router.push(`/runs/${encodeRunSegment(result.runId)}`);
    },
  });
  if (!open)
    return (
      <Button
        type="button"
        size="sm"
        variant="outline"
        data-testid="fork-from-here"
        onClick={() => {
          setOpen(true);
          preview.mutate();
        }}
      >
        Fork from here…
      </Button>
    );
  const shown = preview.data?.ok ? preview.data.preview : undefined;
  return (
    <form
      className="max-w-3xl space-y-2 rounded-md border p-3"
      data-testid="fork-form"
      onSubmit={(e) => {
        e.preventDefault();
        fork.mutate();
      }}
    >
      {preview.isPending ? <p className="text-xs text-muted-foreground">Reading what the fork would keep…</p> : null}
      {preview.data && !preview.data.ok ? <RefusalNote refusal={preview.data} /> : null}
      {shown ? <ForkPreviewList preview={shown} /> : null}
      <Label htmlFor={`fork-instruction-${atStep}`}>Instruction for the model at step {atStep} (optional; the model reads it after the kept history)</Label>
      <Textarea
        id={`fork-instruction-${atStep}`}
        rows={2}
        value={instruction}
        onChange={(e) => setInstruction(e.target.value)}
        data-testid="fork-instruction"
      />
      <Label htmlFor={`fork-reason-${atStep}`}>Why fork? (recorded with your name, in both runs)</Label>
      <Textarea id={`fork-reason-${atStep}`} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="fork-reason" />
      <div className="flex gap-2">
        <Button type="submit" size="sm" disabled={fork.isPending || !shown} data-testid="fork-submit">
          Fork at step {atStep}
        </Button>
        <Button type="button" size="sm" variant="ghost" onClick={() => setOpen(false)}>
          Back
        </Button>
      </div>
      {fork.data && !fork.data.ok ? <RefusalNote refusal={fork.data} /> : null}
    </form>
  );
}

/** What the fork keeps, and every side effect that could act again after the fork point with its key. */
function ForkPreviewList({ preview }: { preview: ForkPreview }) {
  return (
    <div className="space-y-1.5 text-xs" data-testid="fork-preview">
      <p className="font-medium">
        {preview.sharedSteps === 0 ? 'Keeps no model step' : `Keeps steps 1–${preview.sharedSteps}`} ({preview.copiedEvents} events, replayed without calling
        the model or a tool) and asks the model again at step {preview.atStep}.
      </p>
      {preview.repeatable.length === 0 ? (
        <p>The parent performed no side effect after this point.</p>
      ) : (
        <>
          <p>Side effects the parent performed after this point: a call with the same tool and arguments is sent under the same key.</p>
          <ul className="space-y-1.5">
            {preview.repeatable.map((effect) => (
              <li key={effect.idempotencyKey} data-testid="fork-repeatable" data-tool={effect.toolName}>
                <code className="font-mono font-medium">
                  <VisibleText text={effect.toolName} />
                </code>{' '}
                {effect.step !== undefined ? `step ${effect.step}, ` : ''}
                {OUTCOME[effect.outcome]} · key{' '}
                <code className="font-mono wrap-anywhere" data-slot="fork-key">
                  <VisibleText text={effect.idempotencyKey} />
                </code>
                <PayloadText value={effect.input} />
              </li>
            ))}
          </ul>
        </>
      )}
      {preview.sideEffectTools.length > 0 ? (
        <ul className="space-y-0.5 text-muted-foreground" data-testid="fork-tools">
          {preview.sideEffectTools.map((tool) => (
            <li key={tool.toolName}>
              <code className="font-mono">
                <VisibleText text={tool.toolName} />
              </code>
              {tool.needsApproval ? ' (needs approval)' : ''}:{' '}
              {tool.keyScope === 'root-args' ? (
                <>
                  keyed by the root run <VisibleText text={preview.rootRunId} />, the tool and the arguments
                </>
              ) : (
                'a repeat of one above takes its key; any other call gets a new key'
              )}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
