'use client';

import { createContext, useContext } from 'react';
import { Time } from '@/components/ui/time';
import type { Decision, PendingItem } from '@/lib/durable';
import { cn } from '@/lib/utils';
import { VisibleText } from '@/components/ui/visible-text';

/**
 * A resume asked for and not begun yet (the projection's `resumeRequested`): a decided item then says
 * "resuming", not "waiting to resume" (one state at a time, issue 32). Set by the run page.
 */
export const ResumeRequested = createContext<{ by: string; at: number } | undefined>(undefined);

/** Why a run is not moving: each approval, side effect of unknown outcome or tool result it waits for. */
export function RunPendingReason({ pending, className, ...props }: React.ComponentProps<'ul'> & { pending: readonly PendingItem[] }) {
  if (pending.length === 0) return null;
  return (
    <ul data-slot="run-pending-reason" className={cn('space-y-1.5 text-xs', className)} {...props}>
      {pending.map((item) => (
        <li key={`${item.kind}:${item.toolCallId}`} data-kind={item.kind}>
          {item.kind === 'approval' ? (
            <ApprovalReason item={item} />
          ) : item.kind === 'tool-result' ? (
            <ToolResultReason item={item} />
          ) : (
            <SideEffectReason item={item} />
          )}
        </li>
      ))}
    </ul>
  );
}

function ApprovalReason({ item }: { item: Extract<PendingItem, { kind: 'approval' }> }) {
  return (
    <>
      <span className="text-muted-foreground">Awaiting approval of </span>
      <code className="font-mono font-medium">
        <VisibleText text={item.toolName} />
      </code>
      <span className="text-muted-foreground"> since </span>
      <Time value={item.requestedAt} />
      {item.decision ? <DecisionNote decision={item.decision} /> : null}
    </>
  );
}

function ToolResultReason({ item }: { item: Extract<PendingItem, { kind: 'tool-result' }> }) {
  return (
    <>
      <span className="text-muted-foreground">Awaiting the result of </span>
      <code className="font-mono font-medium">
        <VisibleText text={item.toolName} />
      </code>
      <span className="text-muted-foreground"> (a tool without execute) since </span>
      <Time value={item.requestedAt} />
      {item.decision ? <DecisionNote decision={item.decision} /> : null}
    </>
  );
}

function SideEffectReason({ item }: { item: Extract<PendingItem, { kind: 'side-effect' }> }) {
  return (
    <>
      <span className="text-muted-foreground">Side effect of unknown outcome: </span>
      <code className="font-mono font-medium">
        <VisibleText text={item.toolName} />
      </code>
      <span className="text-muted-foreground">, key </span>
      <code className="font-mono wrap-anywhere">
        <VisibleText text={item.idempotencyKey} />
      </code>
      <span className="text-muted-foreground">
        {' '}
        (attempt {item.attempt}, started <Time value={item.startedAt} />)
      </span>
      {item.decision ? <DecisionNote decision={item.decision} /> : null}
    </>
  );
}

function DecisionNote({ decision }: { decision: Decision }) {
  const resuming = useContext(ResumeRequested);
  return (
    <span className="block text-muted-foreground" data-slot="decision-note" data-resuming={resuming ? 'true' : undefined}>
      {decision.outcome} by <VisibleText text={decision.by} />
      {decision.reason ? <VisibleText text={`: ${decision.reason}`} /> : ''} — {resuming ? 'resuming' : 'waiting to resume'}
    </span>
  );
}
