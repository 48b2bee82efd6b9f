'use client';

import { useLiveStep } from '@/components/live/use-live-step';
import { PayloadText } from '@/components/runs/payload-text';
import { VisibleText } from '@/components/ui/visible-text';
import { type LiveToolCall, liveStepOf } from '@/lib/studio/reads/live-step';
import { cn } from '@/lib/utils';
import { Chip, Note } from './event-parts';

/** Characters of the step's text shown at most: its end, where the words arrive. */
const MAX_CHARS = 64_000;

/**
 * The step the run is generating, below its journal: the text so far and the tool calls as they are
 * planned, from the run's stream (useLiveStep), while the run is running; gone once it is not (the
 * journal above then holds the step). Everything shown is the model's text, as text.
 */
export function LiveStep({ runId, running, className, ...props }: React.ComponentProps<'section'> & { runId: string; running: boolean }) {
  const snapshot = useLiveStep(runId, running);
  const step = liveStepOf(snapshot?.message);
  if (!snapshot || !step) return null;
  const generating = snapshot.stepOpen;
  const shown = step.text.length > MAX_CHARS ? step.text.slice(-MAX_CHARS) : step.text;
  return (
    <section
      data-testid="live-step"
      data-state={generating ? 'generating' : 'recorded'}
      aria-labelledby="live-step-title"
      className={cn('space-y-2 rounded-lg border border-l-4 border-l-sky-500/60 px-4 py-3', className)}
      {...props}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <LiveDot on={generating} />
        <h3 id="live-step-title" className="text-sm font-medium">
          {generating ? 'Generating now' : 'Step recorded'}
        </h3>
        <Chip>step {step.step}</Chip>
        <Note className="ml-auto">
          {generating ? 'As the model streams it; the journal records the step once it is whole.' : 'In the journal above; the run goes on.'}
        </Note>
      </div>
      {step.reasoning ? <PayloadText label="Reasoning" value={step.reasoning} /> : null}
      <div
        data-slot="live-text"
        aria-live="polite"
        className="min-h-8 overflow-x-auto rounded-md bg-muted px-3 py-2 font-mono text-xs leading-relaxed whitespace-pre-wrap break-words"
      >
        {shown.length < step.text.length ? `… ${step.text.length - shown.length} earlier characters\n` : null}
        <VisibleText text={shown} />
        {generating ? (
          <span aria-hidden className="ml-px inline-block animate-pulse text-muted-foreground motion-reduce:animate-none">
            ▍
          </span>
        ) : null}
      </div>
      {step.toolCalls.length > 0 ? (
        <ul className="space-y-2">
          {step.toolCalls.map((call) => (
            <LiveToolCallItem key={call.toolCallId} call={call} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function LiveToolCallItem({ call }: { call: LiveToolCall }) {
  return (
    <li data-slot="live-tool-call" data-tool-call-id={call.toolCallId} data-state={call.state} className="space-y-1 rounded-md border px-3 py-2">
      <div className="flex flex-wrap items-baseline gap-x-2 text-sm">
        <span className="text-muted-foreground">calls</span>
        <code className="font-mono font-medium">
          <VisibleText text={call.toolName} />
        </code>
        <Chip data-slot="live-tool-state">{call.stateLabel}</Chip>
      </div>
      {call.hasInput ? <PayloadText value={call.input} /> : <Note>Its input is not whole yet.</Note>}
      {call.errorText ? (
        <p className="text-xs text-red-700 dark:text-red-300 wrap-break-word">
          <VisibleText text={call.errorText} />
        </p>
      ) : null}
    </li>
  );
}

/** A small sky dot, pulsing while the step streams (still for those who ask for less motion). */
function LiveDot({ on }: { on: boolean }) {
  return (
    <span aria-hidden className="relative flex size-2">
      {on ? <span className="absolute inline-flex size-full animate-ping rounded-full bg-sky-500/60 motion-reduce:animate-none" /> : null}
      <span className={cn('relative inline-flex size-2 rounded-full', on ? 'bg-sky-500' : 'bg-muted-foreground/40')} />
    </span>
  );
}
