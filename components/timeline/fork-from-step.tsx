'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { createContext, useContext, useEffect, useState } from 'react';
import { forkPreviewAction, forkRunAction } from '@/app/(studio)/actions';
import { ActionFailure } from '@/components/inbox/action-feedback';
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

type Change = 'instruction' | 'result';

/** The edit as the server actions take it: an instruction, an edited result (JSON text, parsed there), or none. */
function editFields(change: Change, instruction: string, callId: string, output: string) {
  if (change === 'result') return callId ? { toolResult: { toolCallId: callId, output } } : {};
  return instruction.trim() ? { instruction } : {};
}

/**
 * "Fork from here" on a model step: asks the server for the fork's preview (what it keeps, each side
 * effect that could act again and its key), takes a reason (recorded) and at most one change: an
 * instruction, or the edited result of a call of the step before (JSON, checked against the tool's
 * output schema; previewed with the edit before the fork is allowed). Forks in the signed-in
 * operator's name and opens the new run. Untrusted values are rendered as text.
 */
export function ForkFromStep({ runId, atStep }: { runId: string; atStep: number }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [change, setChange] = useState<Change>('instruction');
  const [instruction, setInstruction] = useState('');
  const [callId, setCallId] = useState('');
  const [output, setOutput] = useState('');
  const edit = editFields(change, instruction, callId, output);
  const editKey = JSON.stringify(edit);
  const preview = useMutation({ mutationFn: (fields: ReturnType<typeof editFields>) => forkPreviewAction({ runId, atStep, ...fields }) });
  const [previewedKey, setPreviewedKey] = useState<string>();
  // One per fork made: a double click or a retried submit names the same fork (the executor finds it made).
  const [requestId, setRequestId] = useState(() => crypto.randomUUID());
  const fork = useMutation({
    mutationFn: () => forkRunAction({ runId, atStep, reason, requestId, ...edit }),
    onSuccess: (result) => {
      if (!result.ok) return;
      setRequestId(crypto.randomUUID());
      router.push(`/runs/${encodeRunSegment(result.runId)}`);
    },
  });
  const askPreview = (fields: ReturnType<typeof editFields>) => {
    setPreviewedKey(JSON.stringify(fields));
    preview.mutate(fields);
  };
  const shown = preview.data?.ok ? preview.data.preview : undefined;
  const [editable, setEditable] = useState<ForkPreview['editableResults']>([]);
  useEffect(() => {
    if (shown && shown.editableResults.length > 0 && editable.length === 0) setEditable(shown.editableResults);
  }, [shown, editable.length]);
  const chosen = editable.find((call) => call.toolCallId === callId);
  if (!open)
    return (
      <Button
        type="button"
        size="sm"
        variant="outline"
        data-testid="fork-from-here"
        onClick={() => {
          setOpen(true);
          askPreview({});
        }}
      >
        Fork from here…
      </Button>
    );
  // An edited result is forked only as previewed (and checked): the same edit, answered without a refusal.
  const resultPreviewed = change !== 'result' || (callId !== '' && previewedKey === editKey && preview.data?.ok === true);
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
      <ActionFailure data={preview.data} error={preview.error} />
      {shown ? <ForkPreviewList preview={shown} /> : null}
      <fieldset className="space-y-1 text-xs" data-testid="fork-change">
        <legend className="font-medium text-muted-foreground">What changes at step {atStep}?</legend>
        <label className="mr-4 inline-flex items-center gap-1">
          <input type="radio" name={`fork-change-${atStep}`} checked={change === 'instruction'} onChange={() => setChange('instruction')} />
          An instruction (optional)
        </label>
        {editable.length > 0 ? (
          <label className="inline-flex items-center gap-1">
            <input
              type="radio"
              name={`fork-change-${atStep}`}
              checked={change === 'result'}
              onChange={() => setChange('result')}
              data-testid="fork-change-result"
            />
            The result of a tool call of step {atStep - 1}
          </label>
        ) : null}
      </fieldset>
      {change === 'instruction' ? (
        <>
          <Label htmlFor={`fork-instruction-${atStep}`}>Instruction for the model at step {atStep} (optional; the model reads it after the kept history)</Label>
          <Textarea
            id={`fork-instruction-${atStep}`}
            rows={2}
            value={instruction}
            onChange={(e) => setInstruction(e.target.value)}
            data-testid="fork-instruction"
          />
        </>
      ) : (
        <div className="space-y-2" data-testid="fork-result">
          <Label htmlFor={`fork-result-call-${atStep}`}>Which call of step {atStep - 1}?</Label>
          <select
            id={`fork-result-call-${atStep}`}
            className="h-9 w-full rounded-md border bg-background px-2 text-sm"
            value={callId}
            data-testid="fork-result-call"
            onChange={(e) => {
              setCallId(e.target.value);
              const call = editable.find((c) => c.toolCallId === e.target.value);
              setOutput(call ? JSON.stringify(call.output, null, 2) : '');
            }}
          >
            <option value="">Choose a call…</option>
            {editable.map((call) => (
              <option key={call.toolCallId} value={call.toolCallId}>
                {call.toolName} ({call.toolCallId})
              </option>
            ))}
          </select>
          {chosen ? (
            <>
              <Label htmlFor={`fork-result-output-${atStep}`}>
                What the model reads instead, as JSON (recorded as provided by you, with your reason
                {chosen.outputSchema !== undefined ? '; checked against the tool’s output schema' : ''})
              </Label>
              <Textarea
                id={`fork-result-output-${atStep}`}
                rows={6}
                className="font-mono text-xs"
                value={output}
                onChange={(e) => setOutput(e.target.value)}
                data-testid="fork-result-output"
              />
              {chosen.outputSchema !== undefined ? <PayloadText label="Output schema" value={chosen.outputSchema} /> : null}
              <Button type="button" size="sm" variant="outline" disabled={preview.isPending} onClick={() => askPreview(edit)} data-testid="fork-result-preview">
                Preview with this result
              </Button>
            </>
          ) : null}
        </div>
      )}
      <Label htmlFor={`fork-reason-${atStep}`}>Why fork? (recorded with your name, in both runs)</Label>
      <Textarea id={`fork-reason-${atStep}`} rows={2} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="fork-reason" />
      <div className="flex gap-2">
        <Button type="submit" size="sm" disabled={fork.isPending || !shown || !resultPreviewed} data-testid="fork-submit">
          Fork at step {atStep}
        </Button>
        <Button type="button" size="sm" variant="ghost" onClick={() => setOpen(false)}>
          Back
        </Button>
      </div>
      <ActionFailure data={fork.data} error={fork.error} />
    </form>
  );
}

/** What the fork keeps, and every side effect that could act again after the fork point with its key. */
function ForkPreviewList({ preview }: { preview: ForkPreview }) {
  return (
    <div className="space-y-1.5 text-xs" data-testid="fork-preview">
      <p className="font-medium">
        {preview.sharedSteps === 0 ? 'Keeps no model step' : preview.sharedSteps === 1 ? 'Keeps step 1' : `Keeps steps 1 to ${preview.sharedSteps}`} (
        {preview.copiedEvents} events, replayed without calling the model or a tool) and asks the model again at step {preview.atStep}.
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
