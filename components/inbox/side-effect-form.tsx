'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { type DecisionResult, resolveSideEffectAction } from '@/app/(studio)/actions';
import { Button } from '@/components/ui/button';
import { useHydrated } from '@/components/ui/use-hydrated';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import type { FormProblem } from '@/lib/studio/forms/schema-fields';
import { RefusalNote } from './action-feedback';
import { SchemaForm } from './schema-form';
import { useSchemaForm } from './use-schema-form';

type Choice = 'done' | 'not-done' | 'leave' | undefined;

/**
 * The three choices for a side effect of unknown outcome: mark it done with the output it produced (a
 * form from the tool's output schema, prefilled with what the outside system reports under the key when
 * the tool can look it up; checked against the schema, every problem named at once), mark it not done
 * (the next resume runs it again under the same idempotency key), or leave it (the run stays blocked).
 * Both marks need a reason, recorded with the decision.
 */
export function SideEffectForm({
  runId,
  toolCallId,
  toolName,
  outputSchema,
  prefill,
  onDecided,
  onLost,
  onSend,
}: {
  runId: string;
  toolCallId: string;
  toolName: string;
  outputSchema?: unknown;
  /** The output the outside system reports for the key (the tool's lookup), to start the form from. */
  prefill?: unknown;
  onDecided: (result: DecisionResult) => void;
  /** The decision got no answer: whether it was recorded is the journal's to say, not an error's. */
  onLost?: () => void;
  /** The decision is on its way: a card that leaves meanwhile left by it, not by someone else's. */
  onSend?: () => void;
}) {
  const hydrated = useHydrated();
  const [choice, setChoice] = useState<Choice>();
  const [reason, setReason] = useState('');
  const [formProblems, setFormProblems] = useState<FormProblem[]>([]);
  const form = useSchemaForm(outputSchema, prefill);
  const mutation = useMutation({
    mutationFn: (output: unknown) =>
      choice === 'done'
        ? resolveSideEffectAction({ outcome: 'done', runId, toolCallId, reason, output: JSON.stringify(output ?? null) })
        : resolveSideEffectAction({ outcome: 'not-done', runId, toolCallId, reason }),
    onSuccess: (result) => {
      if (result.ok || result.kind === 'conflict') onDecided(result);
      else if (result.kind === 'invalid') form.setServerProblems(result.issues ?? []);
    },
    onMutate: () => onSend?.(),
    onError: () => onLost?.(),
  });
  const result = mutation.data;
  const id = (what: string) => `${what}-${toolCallId}`;
  return (
    <div className="space-y-2" data-slot="side-effect-form">
      <div className="flex flex-wrap gap-2">
        <Button
          type="button"
          size="sm"
          data-key-action="done"
          disabled={!hydrated}
          variant={choice === 'done' ? 'default' : 'outline'}
          onClick={() => setChoice('done')}
        >
          Mark done…
        </Button>
        <Button
          type="button"
          size="sm"
          data-key-action="not-done"
          disabled={!hydrated}
          variant={choice === 'not-done' ? 'default' : 'outline'}
          onClick={() => setChoice('not-done')}
        >
          Mark not done…
        </Button>
        <Button type="button" size="sm" variant="ghost" disabled={!hydrated} onClick={() => setChoice('leave')}>
          Leave it
        </Button>
      </div>
      {choice === 'leave' ? <p className="text-xs text-muted-foreground">The run stays blocked until someone decides. Nothing was recorded.</p> : null}
      {choice === 'done' || choice === 'not-done' ? (
        <form
          className="space-y-2 rounded-md border p-3"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (choice !== 'done') return mutation.mutate(undefined);
            const read = form.read();
            setFormProblems(read.problems);
            form.setServerProblems([]);
            if (read.problems.length === 0) mutation.mutate(read.value);
          }}
        >
          {choice === 'done' ? (
            <>
              <p className="text-xs text-muted-foreground">
                What did <VisibleText text={toolName} /> return?
                {outputSchema ? ' Its output schema gives the fields' : ' Any JSON: the tool declares no output schema'}
                {prefill !== undefined ? ', filled in from what the outside system reports for this key' : ''}. The run continues as if the call had returned
                it.
              </p>
              <SchemaForm
                field={form.field}
                state={form.state}
                onChange={form.setState}
                problems={[...formProblems, ...form.serverProblems]}
                idPrefix={id('output')}
                rootLabel={`What did ${toolName} return? (JSON)`}
              />
            </>
          ) : (
            <p className="text-xs text-muted-foreground">
              The next resume runs <VisibleText text={toolName} /> again under the same idempotency key: a service that deduplicates by that key answers with
              its first result.
            </p>
          )}
          <Label htmlFor={id('reason')}>Why? (required, recorded with your decision)</Label>
          <Textarea id={id('reason')} name="reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
          <Button type="submit" size="sm" disabled={!hydrated || mutation.isPending}>
            {choice === 'done' ? 'Mark done' : 'Mark not done'}
          </Button>
        </form>
      ) : null}
      {result && !result.ok && result.kind !== 'conflict' ? <RefusalNote refusal={result} /> : null}
      {mutation.error && !onLost ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </div>
  );
}
