'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { type DecisionResult, provideToolResultAction } from '@/app/(studio)/actions';
import { PayloadText } from '@/components/runs/payload-text';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import { RefusalNote } from './action-feedback';

/**
 * The result of a call to a tool without execute, given by a person: JSON (checked against the tool's
 * output schema when it has one), handed to the model as the tool's result on the next resume. A note
 * on where it comes from is optional and recorded with it.
 */
export function ToolResultForm({
  runId,
  toolCallId,
  toolName,
  outputSchema,
  onDecided,
}: {
  runId: string;
  toolCallId: string;
  toolName: string;
  outputSchema?: unknown;
  onDecided: (result: DecisionResult) => void;
}) {
  const [output, setOutput] = useState('');
  const [reason, setReason] = useState('');
  const mutation = useMutation({
    mutationFn: () => provideToolResultAction({ runId, toolCallId, output, ...(reason.trim() ? { reason } : {}) }),
    onSuccess: (result) => {
      if (result.ok || result.kind === 'conflict') onDecided(result);
    },
  });
  const result = mutation.data;
  const id = (what: string) => `${what}-${toolCallId}`;
  return (
    <form
      className="space-y-2"
      data-slot="tool-result-form"
      onSubmit={(e) => {
        e.preventDefault();
        mutation.mutate();
      }}
    >
      <Label htmlFor={id('result')}>
        What does <VisibleText text={toolName} /> return? JSON
        {outputSchema ? ', matching its output schema' : ' (any JSON: the tool declares no output schema)'}. The model gets it as the tool’s result.
      </Label>
      <Textarea
        id={id('result')}
        name="output"
        rows={5}
        className="font-mono text-xs"
        placeholder='{ "ok": true }'
        value={output}
        onChange={(e) => setOutput(e.target.value)}
      />
      {outputSchema ? <PayloadText label="Output schema" value={outputSchema} /> : null}
      <Label htmlFor={id('result-reason')}>Where does it come from? (optional, recorded with it)</Label>
      <Textarea id={id('result-reason')} name="reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
      <Button type="submit" size="sm" disabled={mutation.isPending || output.trim() === ''}>
        Provide result
      </Button>
      {result && !result.ok && result.kind !== 'conflict' ? <RefusalNote refusal={result} /> : null}
      {mutation.error ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </form>
  );
}
