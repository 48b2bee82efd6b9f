import { PayloadText } from '@/components/runs/payload-text';
import type { TokenUsage } from '@/lib/durable';
import { readModelStep } from '@/lib/studio/reads/model-step';
import type { WireEventOf } from '@/lib/studio/reads/wire';
import { CallOutcome } from './call-outcome';
import { ForkFromStepSlot } from './fork-from-step';
import { Chip, EventHeader, formatDuration, Note } from './event-parts';
import { replaysAfter, type TimelineIndex } from './timeline-index';
import { VisibleText } from '@/components/ui/visible-text';

function tokenText(usage: TokenUsage): string | undefined {
  const parts = [
    usage.input !== undefined ? `${usage.input} in` : undefined,
    usage.output !== undefined ? `${usage.output} out` : undefined,
    usage.cacheRead ? `${usage.cacheRead} cache read` : undefined,
    usage.cacheWrite ? `${usage.cacheWrite} cache write` : undefined,
    usage.reasoning ? `${usage.reasoning} reasoning` : undefined,
  ].filter(Boolean);
  return parts.length ? `${parts.join(' · ')} tokens` : undefined;
}

/** A model call: what it said, the tools it called (each linked to its result and approval), why it stopped, what it cost. */
export function ModelStepCard({ event, index }: { event: WireEventOf<'model-step'>; index: TimelineIndex }) {
  const step = readModelStep(event.result);
  const tokens = tokenText(step.usage);
  const latency = formatDuration(event.latencyMs);
  const replays = replaysAfter(index, event.seq);
  return (
    <div className="space-y-2" data-slot="model-step-card">
      <EventHeader title={`Model step ${event.step + 1}`} at={event.at}>
        <Chip className="font-mono">
          <VisibleText text={event.modelId} />
        </Chip>
        {latency ? <Chip>{latency}</Chip> : null}
        {step.finishReason ? (
          <Chip data-slot="finish-reason">
            finish: <VisibleText text={step.finishReason} />
            {step.rawFinishReason ? <VisibleText text={` (${step.rawFinishReason})`} /> : ''}
          </Chip>
        ) : null}
        {tokens ? <Chip data-slot="tokens">{tokens}</Chip> : null}
      </EventHeader>
      {step.reasoning ? <PayloadText label="Reasoning" value={step.reasoning} /> : null}
      {step.text ? <PayloadText label="Text" value={step.text} data-slot="step-text" /> : null}
      {step.toolCalls.length > 0 ? (
        <ul className="space-y-2">
          {step.toolCalls.map((call) => (
            <li key={call.toolCallId} data-slot="step-tool-call" data-tool-call-id={call.toolCallId} className="space-y-1 rounded-md border px-3 py-2">
              <div className="flex flex-wrap items-baseline gap-x-2 text-sm">
                <span className="text-muted-foreground">calls</span>
                <code className="font-mono font-medium">
                  <VisibleText text={call.toolName} />
                </code>
                <span className="text-xs">
                  <CallOutcome call={index.calls.get(call.toolCallId)} />
                </span>
              </div>
              <PayloadText value={call.input} />
            </li>
          ))}
        </ul>
      ) : null}
      <ForkFromStepSlot step={event.step} />
      {replays > 0 ? (
        <Note>
          Recorded once; {replays === 1 ? 'a later invocation' : `${replays} later invocations`} replayed it from the journal without calling the model.
        </Note>
      ) : null}
    </div>
  );
}
