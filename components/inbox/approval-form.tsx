'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { approveAction, type DecisionResult, rejectAction } from '@/app/(studio)/actions';
import { Button } from '@/components/ui/button';
import { useHydrated } from '@/components/ui/use-hydrated';
import { Label } from '@/components/ui/input';
import { Textarea } from '@/components/ui/textarea';
import { VisibleText } from '@/components/ui/visible-text';
import type { FormProblem } from '@/lib/studio/forms/schema-fields';
import { RefusalNote } from './action-feedback';
import { ConfirmStep } from './confirm-step';
import { SchemaForm } from './schema-form';
import { useSchemaForm } from './use-schema-form';

type Choice = { kind: 'approve' } | { kind: 'approve-edited'; input: unknown } | { kind: 'reject' };

/**
 * Approve; edit the arguments, then approve (a form from the tool's input schema, prefilled with the
 * model's arguments: the call executes with exactly what is approved); or reject with a reason the
 * model will see (as the tool's result). Approve asks first (confirm-step.tsx), as its key does.
 * Under a rule with four eyes or more than one approval, changed arguments are proposed instead: others
 * approve them as changed, and Approve then approves the proposal (it sends those arguments back, so an
 * approval of arguments the approver never saw is refused by the journal).
 */
export function ApprovalForm({
  runId,
  toolCallId,
  toolName,
  input,
  inputSchema,
  proposes = false,
  proposal,
  onDecided,
  onLost,
  onSend,
}: {
  runId: string;
  toolCallId: string;
  /** Named in the confirmation. */
  toolName?: string;
  /** The arguments the model asked with: the edit form starts from them. */
  input?: unknown;
  /** The JSON Schema of the tool's arguments (absent: one JSON field). */
  inputSchema?: unknown;
  /** Changed arguments are a proposal others approve (an approval rule with four eyes or more than one approval). */
  proposes?: boolean;
  /** Arguments someone changed under the rule, waiting for approvals: Approve approves these. */
  proposal?: { input: unknown; by: string };
  onDecided: (result: DecisionResult) => void;
  /** The decision got no answer: whether it was recorded is the journal's to say, not an error's. */
  onLost?: () => void;
  /** The decision is on its way: a card that leaves meanwhile left by it, not by someone else's. */
  onSend?: () => void;
}) {
  const hydrated = useHydrated();
  const [mode, setMode] = useState<'buttons' | 'confirming' | 'rejecting' | 'editing'>('buttons');
  const [reason, setReason] = useState('');
  const [formProblems, setFormProblems] = useState<FormProblem[]>([]);
  const form = useSchemaForm(inputSchema, proposal ? proposal.input : input);
  const mutation = useMutation({
    mutationFn: (choice: Choice) =>
      choice.kind === 'reject'
        ? rejectAction({ runId, toolCallId, reason })
        : approveAction({
            runId,
            toolCallId,
            ...(reason.trim() ? { reason } : {}),
            ...(choice.kind === 'approve-edited' ? { input: JSON.stringify(choice.input) } : {}),
          }),
    onSuccess: (result) => {
      if (result.ok || result.kind === 'conflict') onDecided(result);
      else if (result.kind === 'invalid') form.setServerProblems(result.issues ?? []);
    },
    onMutate: () => onSend?.(),
    onError: () => onLost?.(),
  });
  const result = mutation.data;
  const id = (what: string) => `${what}-${toolCallId}`;
  const problems = [...formProblems, ...form.serverProblems];
  return (
    <div className="space-y-2" data-slot="approval-form">
      {mode === 'rejecting' ? (
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            mutation.mutate({ kind: 'reject' });
          }}
        >
          <Label htmlFor={id('reject')}>Why not? The model sees this reason as the tool’s answer.</Label>
          <Textarea id={id('reject')} name="reason" rows={2} required value={reason} onChange={(e) => setReason(e.target.value)} />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={mutation.isPending || reason.trim() === ''}>
              Reject
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setMode('buttons')}>
              Back
            </Button>
          </div>
        </form>
      ) : mode === 'confirming' ? (
        <ConfirmStep
          question={
            <>
              Approve <VisibleText text={toolName ?? 'this call'} />
              {proposal ? (
                <>
                  {' '}
                  with the arguments as <VisibleText text={proposal.by} /> changed them
                </>
              ) : null}
              ? {proposes ? 'It runs once the rule’s approvals are given.' : 'The run goes on with it.'}
            </>
          }
          confirmLabel="Confirm approval"
          disabled={!hydrated || mutation.isPending}
          onConfirm={() => mutation.mutate(proposal ? { kind: 'approve-edited', input: proposal.input } : { kind: 'approve' })}
          onCancel={() => setMode('buttons')}
        />
      ) : mode === 'editing' ? (
        <form
          className="space-y-2 rounded-md border p-3"
          data-slot="edit-arguments"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            const read = form.read();
            setFormProblems(read.problems);
            form.setServerProblems([]);
            if (read.problems.length === 0) mutation.mutate({ kind: 'approve-edited', input: read.value });
          }}
        >
          <p className="text-xs text-muted-foreground">
            {proposes
              ? 'Propose changed arguments: the approval rule asks others to approve them as changed (approvals given so far are void). The journal keeps the model’s arguments, yours, and your name.'
              : 'Change the arguments, then approve: the call executes with exactly these. The journal keeps the model’s arguments, yours, and your name.'}
          </p>
          <SchemaForm field={form.field} state={form.state} onChange={form.setState} problems={problems} idPrefix={id('arg')} />
          <Label htmlFor={id('edit-reason')}>Why the change? (optional, recorded with your decision)</Label>
          <Textarea id={id('edit-reason')} name="reason" rows={2} value={reason} onChange={(e) => setReason(e.target.value)} />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={!hydrated || mutation.isPending}>
              {proposes ? 'Propose these arguments' : 'Approve with these arguments'}
            </Button>
            <Button
              type="button"
              size="sm"
              variant="ghost"
              onClick={() => {
                form.reset(proposal ? proposal.input : input);
                setFormProblems([]);
                setMode('buttons');
              }}
            >
              Back
            </Button>
          </div>
        </form>
      ) : (
        <div className="flex gap-2">
          <Button type="button" size="sm" data-key-action="approve" disabled={!hydrated || mutation.isPending} onClick={() => setMode('confirming')}>
            Approve
          </Button>
          <Button type="button" size="sm" variant="outline" disabled={!hydrated || mutation.isPending} onClick={() => setMode('editing')}>
            {proposes ? 'Propose other arguments…' : 'Change arguments…'}
          </Button>
          <Button
            type="button"
            size="sm"
            variant="outline"
            data-key-action="reject"
            disabled={!hydrated || mutation.isPending}
            onClick={() => setMode('rejecting')}
          >
            Reject…
          </Button>
        </div>
      )}
      {result && !result.ok && result.kind !== 'conflict' ? <RefusalNote refusal={result} /> : null}
      {mutation.error && !onLost ? <RefusalNote refusal={{ ok: false, kind: 'error', message: mutation.error.message }} /> : null}
    </div>
  );
}
