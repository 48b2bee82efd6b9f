import { PayloadText } from '@/components/runs/payload-text';
import type { WireEventOf } from '@/lib/studio/reads/wire';
import { Chip, EventHeader, formatDuration, IdempotencyKey, Note, SeqLink } from './event-parts';
import { replaysAfter, type TimelineIndex } from './timeline-index';
import { VisibleText } from '@/components/ui/visible-text';
import { runHref } from '@/lib/studio/reads/run-path';

type ToolEvent = WireEventOf<'tool-call-start'> | WireEventOf<'tool-call-end'> | WireEventOf<'tool-call-error'>;

const SOURCE: Record<WireEventOf<'tool-call-end'>['source'], string> = {
  executed: 'executed',
  check: 'settled by check',
  deduplicated: 'deduplicated',
  provided: 'provided',
};

const SOURCE_NOTE: Record<WireEventOf<'tool-call-end'>['source'], string> = {
  executed: 'This attempt executed the tool.',
  check: 'After an unknown outcome, the tool’s check asked the outside system, which said it was done: this is its answer.',
  deduplicated: 'Another call with the same idempotency key did the work: its result is reused, nothing ran again.',
  provided: 'The tool has no execute: a person or a client provided this result through the journal (provideToolResult).',
};

/** A tool call's start, result or error: name, arguments, key, attempt, duration, output or error, executed or replayed. */
export function ToolCallBody({ event, index }: { event: ToolEvent; index: TimelineIndex }) {
  const call = index.calls.get(event.toolCallId);
  const duration = event.type === 'tool-call-start' ? undefined : formatDuration(event.durationMs);
  const title =
    event.type === 'tool-call-start' ? (
      <>
        <code className="font-mono">
          <VisibleText text={event.toolName} />
        </code>{' '}
        started
      </>
    ) : event.type === 'tool-call-end' && event.source === 'provided' ? (
      <>
        result of{' '}
        <code className="font-mono">
          <VisibleText text={event.toolName} />
        </code>{' '}
        provided by <VisibleText text={event.by ?? 'someone'} />
      </>
    ) : event.type === 'tool-call-end' ? (
      <>
        <code className="font-mono">
          <VisibleText text={event.toolName} />
        </code>{' '}
        returned
      </>
    ) : (
      <>
        <code className="font-mono">
          <VisibleText text={event.toolName} />
        </code>{' '}
        threw
      </>
    );
  const input = event.type === 'tool-call-start' ? event.input : event.input;
  const outcomeSeq = call?.end?.seq ?? call?.errors[call.errors.length - 1]?.seq;
  const replays = event.type === 'tool-call-end' ? replaysAfter(index, event.seq) : 0;
  return (
    <div className="space-y-2" data-slot="tool-call">
      <EventHeader title={title} at={event.at}>
        {event.type === 'tool-call-start' && event.sideEffect ? <Chip>side effect</Chip> : null}
        <Chip>attempt {event.attempt}</Chip>
        {duration ? <Chip>{duration}</Chip> : null}
        {event.type === 'tool-call-end' ? <Chip data-slot="tool-source">{SOURCE[event.source] ?? event.source}</Chip> : null}
        {event.type === 'tool-call-error' ? <Chip>{event.retryable ? 'retryable: tried again on resume' : 'final'}</Chip> : null}
      </EventHeader>
      <IdempotencyKey value={event.idempotencyKey} />
      {input !== undefined ? <PayloadText label="Arguments" value={input} /> : null}
      {event.type === 'tool-call-end' ? <PayloadText label="Output" value={event.output} data-slot="tool-output" /> : null}
      {event.type === 'tool-call-end' && event.reason ? <PayloadText label="Why (as they said it)" value={event.reason} /> : null}
      {event.type === 'tool-call-error' ? (
        <PayloadText
          label="Error"
          value={`${event.error.name}: ${event.error.message}`}
          className="[&>div:last-child]:text-red-800 dark:[&>div:last-child]:text-red-200"
        />
      ) : null}
      <Note className="flex flex-wrap gap-x-3">
        {call?.stepSeq !== undefined ? (
          <span>
            asked in <SeqLink seq={call.stepSeq}>step #{call.stepSeq}</SeqLink>
          </span>
        ) : null}
        {event.type !== 'tool-call-start' && call?.starts.length ? (
          <span>
            started <SeqLink seq={call.starts[call.starts.length - 1]?.seq ?? 0} />
          </span>
        ) : null}
        {event.type === 'tool-call-start' ? (
          outcomeSeq !== undefined ? (
            <span>
              outcome <SeqLink seq={outcomeSeq} />
            </span>
          ) : call?.resolution ? (
            <span>
              settled by <VisibleText text={call.resolution.by} /> <SeqLink seq={call.resolution.seq} />
            </span>
          ) : (
            <span className="font-medium text-orange-700 dark:text-orange-300">no outcome recorded after this start</span>
          )
        ) : null}
      </Note>
      {event.type === 'tool-call-end' && event.inheritedFrom ? (
        <Note data-slot="inherited-from">
          Answered from the record of run{' '}
          <a className="underline" href={runHref(event.inheritedFrom)}>
            <VisibleText text={event.inheritedFrom} />
          </a>
          , another run of the same job that did this work (same tool, same arguments, this key): nothing ran again here.
        </Note>
      ) : event.type === 'tool-call-end' ? (
        <Note>
          {SOURCE_NOTE[event.source] ?? ''}
          {replays > 0 ? ` Replayed from the journal by ${replays === 1 ? 'a later invocation' : `${replays} later invocations`}, not executed again.` : ''}
        </Note>
      ) : null}
    </div>
  );
}
