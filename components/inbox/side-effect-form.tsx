'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { type DecisionResult, resolveSideEffectAction } from '@/app/(studio)/actions';
import { PayloadText } from '@/components/runs/payload-text';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import { RefusalNote } from './action-feedback';

type Choice = 'done' | 'not-done' | 'leave' | undefined;

/**
 * The three choices for a side effect of unknown outcome: mark it done with the output it produced
 * (JSON, checked against the tool's output schema when it has one), mark it not done (the next resume
 * runs it again under the same idempotency key), or leave it (the run stays blocked). Both marks need
 * a reason, recorded with the decision.
 */
export function SideEffectForm({
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
  const [choice, setChoice] = useState<Choice>();
  const [output, setOutput] = useState('');
  const [reason, setReason] = useState('');
  const mutation = useMutation({
    mutationFn: () =>
      choice === 'done'
        ? resolveSideEffectAction({ outcome: 'done', runId, toolCallId, reason, output })
        : resolveSideEffectAction({ outcome: 'not-done', runId, toolCallId, reason }),
    onSuccess: (result) => {
      if (result.ok || result.kind === 'conflict') onDecided(result);
    },
  });
  const result = mutation.data;
  const id = (what: string) => `${what}-${toolCallId}`;
  return (
    <div className="space-y-2" data-slot="side-effect-form">
      <div className="flex flex-wrap gap-2">
        <Button type="button" size="sm" data-key-action="done" variant={choice === 'done' ? 'default' : 'outline'} onClick={() => setChoice('done')}>
          Mark done…
        </Button>
        <Button
          type="button"
          size="sm"
          data-key-action="not-done"
          variant={choice === 'not-done' ? 'default' : 'outline'}
          onClick={() => setChoice('not-done')}
        >
          Mark not done…
        </Button>
        <Button type="button" size="sm" variant="ghost" onClick={() => setChoice('leave')}>
          Leave it
        </Button>
      </div>
      {choice === 'leave' ? <p className="text-xs text-muted-foreground">The run stays blocked until someone decides. Nothing was recorded.</p> : null}
      {choice === 'done' || choice === 'not-done' ? (
        <form
          className="space-y-2 rounded-md border p-3"
          onSubmit={(e) => {
            e.preventDefault();
            mutation.mutate();
          }}
        >
          {choice === 'done' ? (
            <>
              <Label htmlFor={id('output')}>
                What did <VisibleText text={toolName} /> return? JSON
                {outputSchema ? `, matching its output schema` : ' (any JSON: the tool declares no output schema)'}. The run continues as if the call had
                returned it.
              </Label>
              <Textarea
                id={id('output')}
                name="output"
                rows={5}
                className="font-mono text-xs"
                placeholder='{ "ok": true }'
                value={output}
                onChange={(e) => setOutput(e.target.value)}
              />
              {outputSchema ? <PayloadText label="Output schema" value={outputSchema} /> : null}
            </>
          ) : (
            <p className="text-xs text-muted-foreground">
              The next resume runs <VisibleText text={toolName} /> again under the same idempotency key: a service that deduplicates by that key answers with
              its first result.
            </p>
          )}
          <Label htmlFor={id('reason')}>Why? (required, recorded with your decision)</Label>
          <Textarea id={id('reason')} name="reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
          <Button type="submit" size="sm" disabled={mutation.isPending}>
            {choice === 'done' ? 'Mark done' : 'Mark not done'}
          </Button>
        </form>
      ) : null}
      {result && !result.ok && result.kind !== 'conflict' ? <RefusalNote refusal={result} /> : null}
      {mutation.error ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </div>
  );
}
