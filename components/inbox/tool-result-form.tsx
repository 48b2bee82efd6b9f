'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { type DecisionResult, provideToolResultAction } from '@/app/(studio)/actions';
import { Button } from '@/components/ui/button';
import { useHydrated } from '@/components/ui/use-hydrated';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import type { FormProblem } from '@/lib/studio/forms/schema-fields';
import { RefusalNote } from './action-feedback';
import { SchemaForm } from './schema-form';
import { useSchemaForm } from './use-schema-form';

/**
 * The result of a call to a tool without execute (an askPerson tool, say), given by a person: a form from
 * the tool's output schema (one JSON field without one), checked against it with every problem named at
 * once, handed to the model as the tool's result on the next resume. A note on where it comes from is
 * optional and recorded with it.
 */
export function ToolResultForm({
  runId,
  toolCallId,
  toolName,
  outputSchema,
  onDecided,
  onLost,
  onSend,
}: {
  runId: string;
  toolCallId: string;
  toolName: string;
  outputSchema?: unknown;
  onDecided: (result: DecisionResult) => void;
  /** The decision got no answer: whether it was recorded is the journal's to say, not an error's. */
  onLost?: () => void;
  /** The decision is on its way: a card that leaves meanwhile left by it, not by someone else's. */
  onSend?: () => void;
}) {
  const [reason, setReason] = useState('');
  const [formProblems, setFormProblems] = useState<FormProblem[]>([]);
  const form = useSchemaForm(outputSchema, undefined);
  const hydrated = useHydrated();
  const mutation = useMutation({
    mutationFn: (output: unknown) =>
      provideToolResultAction({ runId, toolCallId, output: JSON.stringify(output ?? null), ...(reason.trim() ? { reason } : {}) }),
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
    <form
      className="space-y-2"
      data-slot="tool-result-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const read = form.read();
        setFormProblems(read.problems);
        form.setServerProblems([]);
        if (read.problems.length === 0) mutation.mutate(read.value);
      }}
    >
      <p className="text-xs text-muted-foreground">
        What does <VisibleText text={toolName} /> return?
        {outputSchema ? ' Its output schema gives the fields.' : ' Any JSON: the tool declares no output schema.'} The model gets it as the tool’s result.
      </p>
      <SchemaForm
        field={form.field}
        state={form.state}
        onChange={form.setState}
        problems={[...formProblems, ...form.serverProblems]}
        idPrefix={id('result')}
        rootLabel={`What does ${toolName} return? (JSON)`}
      />
      <Label htmlFor={id('result-reason')}>Where does it come from? (optional, recorded with it)</Label>
      <Textarea id={id('result-reason')} name="reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      <Button type="submit" size="sm" disabled={!hydrated || mutation.isPending}>
        Provide result
      </Button>
      {result && !result.ok && result.kind !== 'conflict' ? <RefusalNote refusal={result} /> : null}
      {mutation.error && !onLost ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </form>
  );
}
