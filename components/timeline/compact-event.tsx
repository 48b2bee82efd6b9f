'use client';

import { cva } from 'class-variance-authority';
import { useState } from 'react';
import { formatMs } from '@/components/runs/run-totals';
import { VisibleText } from '@/components/ui/visible-text';
import type { Invocation } from '@/lib/durable/projection';
import { readModelStep } from '@/lib/studio/reads/model-step';
import type { WireEvent, WireEventOf } from '@/lib/studio/reads/wire';
import { TONE, type Tone } from './event-tone';

type Mark = Tone;

const markVariants = cva('mt-1.5 inline-block size-2 shrink-0 rounded-full', {
  variants: {
    mark: {
      model: 'bg-sky-500',
      tool: 'bg-violet-500',
      operator: 'bg-emerald-600',
      waiting: 'bg-amber-500',
      lifecycle: 'bg-muted-foreground/40',
      problem: 'bg-red-500',
    } satisfies Record<Mark, string>,
  },
});

const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false, timeZone: 'UTC' });
const oneLine = (text: string, max = 160) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};
const args = (value: unknown) => oneLine(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), 100);

/** The begin of an invocation, by how it began (run-invocations.ts): the first one is no "resume". */
export function invocationTitle(invocation: Invocation | undefined): string {
  switch (invocation?.began) {
    case 'first':
      return 'Invoked: the run’s first invocation';
    case 'after-interruption':
      return 'Resumed after an interruption';
    case 'after-wait':
      return invocation.decidedBy ? `Resumed after ${invocation.decidedBy}’s decision` : 'Resumed after the wait';
    case 'after-failure':
      return invocation.retry ? `Retried automatically (attempt ${invocation.retry.attempt} of ${invocation.retry.attempts})` : 'Resumed after a failure';
    default:
      return 'Resumed';
  }
}

/** One event as one line: what it is and its essentials; untrusted text as text. */
export function compactLine(event: WireEvent, invocation?: Invocation): string {
  switch (event.type) {
    case 'run-start':
      return `Started · ${event.input.provider}/${event.input.modelId}`;
    case 'run-resume':
      return `${invocationTitle(invocation)} · was ${event.fromStatus}`;
    case 'model-step': {
      const step = readModelStep(event.result);
      const calls = step.toolCalls.map((c) => c.toolName).join(', ');
      const said = step.text ? ` · “${oneLine(step.text, 120)}”` : '';
      return `Model step ${event.step + 1} · ${formatMs(event.latencyMs)}${calls ? ` · asks for ${calls}` : ''}${said}`;
    }
    case 'tool-call-start':
      return `${event.toolName} started (attempt ${event.attempt}${event.sideEffect ? ', side effect' : ''}) · ${args(event.input)}`;
    case 'tool-call-end':
      return event.source === 'provided'
        ? `${event.toolName}: result provided by ${event.by ?? 'someone'}`
        : `${event.toolName} returned (${event.source}) · ${formatMs(event.durationMs)} · ${args(event.output)}`;
    case 'tool-call-error':
      return `${event.toolName} failed${event.retryable ? ' (tried again on resume)' : ''} · ${event.error.name}: ${oneLine(event.error.message, 100)}`;
    case 'tool-approval-request':
      return `${event.toolName} needs approval · ${args(event.input)}`;
    case 'tool-approval-response':
      return `${event.expired ? 'Approval expired' : event.approved ? `Approved by ${event.by}` : `Rejected by ${event.by}`}${event.reason ? ` · “${oneLine(event.reason, 100)}”` : ''}`;
    case 'tool-approval-vote':
      return `${event.proposedInputHash ? `Arguments changed by ${event.by} · ${args(event.proposedInput)}` : `Approval counted from ${event.by}`}${event.reason ? ` · “${oneLine(event.reason, 100)}”` : ''}`;
    case 'side-effect-check':
      return `Check after an unknown outcome: ${event.result.done === 'unknown' ? 'the outside system could not say' : event.result.done ? 'done' : 'not done'}`;
    case 'side-effect-resolution':
      return `Marked ${event.outcome === 'done' ? 'done' : 'not done'} by ${event.by}${event.reason ? ` · “${oneLine(event.reason, 100)}”` : ''}`;
    case 'replay-mismatch':
      return `A replay asked differently (${event.kind})`;
    case 'run-suspend':
      return `Suspended: ${event.status} · ${event.pending.map((p) => p.toolName).join(', ')}`;
    case 'run-complete':
      return `Completed · “${oneLine(event.text, 140)}”`;
    case 'run-fail':
      return `Failed · ${event.error.name}: ${oneLine(event.error.message, 120)}`;
    case 'run-cancel':
      return `Canceled by ${event.by}${event.reason ? ` · “${oneLine(event.reason, 100)}”` : ''}`;
    case 'run-resume-request':
      return `Resume asked by ${event.by}${event.resumeAt ? ` for ${event.resumeAt}` : ''}`;
    case 'run-migrate':
      return `Migrated by ${event.by} to version ${event.toVersion ?? '?'}`;
    case 'run-forked':
      return `Forked at step ${event.atStep} by ${event.by} as ${event.childRunId}`;
    case 'run-restarted':
      return `Restarted by ${event.by} as ${event.restartedAs}${event.newAttempt ? ' (a new attempt)' : ''}`;
    case 'run-imported':
      return `Imported by ${event.by} from an export of ${event.from.runId}${event.from.redacted ? ' (redacted)' : ''}`;
    case 'run-retry':
      return event.retryAt ? `Retry ${event.attempt + 1} of ${event.attempts} scheduled by ${event.by}` : `Attempts used up (${event.attempts})`;
    case 'tool-call-repair':
      return event.repaired ? `A tool call was repaired (${event.toolCallId})` : `A tool call could not be repaired (${event.toolCallId})`;
    case 'workflow-wait':
      return `${waitTitle(event.wait)} · ${event.name}`;
    case 'workflow-wait-end':
      return `${WAIT_END[event.outcome]}${event.eventId ? ` · event ${event.eventId}` : ''} (${event.waitId})`;
    case 'workflow-event':
      return `Event “${event.name}” sent by ${event.by} (id ${event.eventId})`;
  }
}

const WAIT_END = { elapsed: 'Woke up', event: 'Event delivered', timeout: 'Timed out waiting', children: 'Child runs settled' } as const;

function waitTitle(wait: WireEventOf<'workflow-wait'>['wait']): string {
  if (wait.kind === 'sleep') return `Sleeping until ${wait.until}`;
  if (wait.kind === 'event') return `Waiting for event “${wait.event}”${wait.timeoutAt ? ` until ${wait.timeoutAt}` : ''}`;
  return `Waiting for ${wait.children.length} child run${wait.children.length === 1 ? '' : 's'}`;
}

/**
 * The compact view's line for one event (the default for long runs): its anchor, time of day, a mark
 * for its kind and one line; "open" shows the full card (`children`) in place.
 */
export function CompactEvent({ event, invocation, children }: { event: WireEvent; invocation?: Invocation; children: React.ReactNode }) {
  const [open, setOpen] = useState(false);
  if (open) return children;
  return (
    <li
      id={`seq-${event.seq}`}
      data-testid="run-event"
      data-compact=""
      data-seq={event.seq}
      data-type={event.type}
      data-keynav-item=""
      className="flex scroll-mt-20 items-start gap-2 px-3 py-1 font-mono text-xs outline-none data-[keynav-focused]:ring-2 data-[keynav-focused]:ring-foreground/40 data-[keynav-focused]:ring-inset"
    >
      <a href={`#seq-${event.seq}`} className="w-12 shrink-0 text-right text-muted-foreground tabular-nums hover:underline">
        #{event.seq}
      </a>
      <time dateTime={event.at} title={event.at} className="shrink-0 text-muted-foreground tabular-nums">
        {clock.format(new Date(event.at))}
      </time>
      <span aria-hidden className={markVariants({ mark: TONE[event.type] ?? 'lifecycle' })} />
      <span className="min-w-0 flex-1 truncate font-sans text-sm" title={compactLine(event, invocation)}>
        <VisibleText text={compactLine(event, invocation)} />
      </span>
      <button
        type="button"
        className="shrink-0 text-muted-foreground hover:text-foreground"
        onClick={() => setOpen(true)}
        aria-label={`Open event #${event.seq}`}
      >
        open
      </button>
    </li>
  );
}
