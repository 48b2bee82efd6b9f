import { cva } from 'class-variance-authority';
import Link from 'next/link';
import { PayloadText, payloadString } from '@/components/runs/payload-text';
import { HiddenCharsWarning, VisibleText } from '@/components/ui/visible-text';
import { findHidden } from '@/lib/text';
import { TraceChip } from './trace-chip';
import { encodeRunSegment } from '@/lib/studio/reads/run-path';
import type { WireEvent, WireEventOf } from '@/lib/studio/reads/wire';
import { Chip, EventHeader, Note, Reason, SeqLink } from './event-parts';
import { ModelStepCard } from './model-step-card';
import { RawRecord } from './raw-record';
import type { TimelineIndex } from './timeline-index';
import { ToolCallBody } from './tool-call-body';
import { CompactEvent, compactLine, invocationTitle } from './compact-event';
import { TONE, type Tone } from './event-tone';
import { useTimelineMode } from './timeline-mode';

const SUSPEND_TITLE = {
  'waiting-approval': 'Waiting for approval',
  'waiting-tool-result': 'Waiting for a tool result',
  blocked: 'Blocked: a side effect’s outcome is unknown',
  waiting: 'Waiting: the workflow sleeps, waits for an event or for its child runs',
} satisfies Record<WireEventOf<'run-suspend'>['status'], string>;

const PENDING_VERB = { approval: 'approve or reject ', 'side-effect': 'settle ', 'tool-result': 'provide the result of ' } satisfies Record<
  WireEventOf<'run-suspend'>['pending'][number]['kind'],
  string
>;

export const timelineEventVariants = cva(
  'grid scroll-mt-20 gap-x-3 gap-y-1 border-l-4 px-4 py-3 outline-none sm:grid-cols-[4rem_1fr] data-[keynav-focused]:ring-2 data-[keynav-focused]:ring-foreground/40 data-[keynav-focused]:ring-inset',
  {
    variants: {
      tone: {
        model: 'border-l-sky-500/60',
        tool: 'border-l-violet-500/50',
        operator: 'border-l-emerald-600/60 bg-emerald-500/5',
        waiting: 'border-l-amber-500/70 bg-amber-500/5',
        lifecycle: 'border-l-transparent',
        problem: 'border-l-red-500/70 bg-red-500/5',
      } satisfies Record<Tone, string>,
    },
  },
);

/** One journal event: its anchor (#seq-N), a body that reads the event for a person, and the record itself, collapsed. */
export function TimelineEvent({ event, index }: { event: WireEvent; index: TimelineIndex }) {
  const { compact, invocations } = useTimelineMode();
  const card = <TimelineCard event={event} index={index} />;
  return compact ? (
    <CompactEvent event={event} invocation={invocations.get(event.seq)}>
      {card}
    </CompactEvent>
  ) : (
    card
  );
}

function TimelineCard({ event, index }: { event: WireEvent; index: TimelineIndex }) {
  const { seq, at: _at, type, ...payload } = event;
  return (
    <li
      id={`seq-${seq}`}
      data-testid="run-event"
      data-seq={seq}
      data-type={type}
      data-keynav-item=""
      className={timelineEventVariants({ tone: TONE[type] ?? 'lifecycle' })}
    >
      <a href={`#seq-${seq}`} className="pt-0.5 font-mono text-xs text-muted-foreground tabular-nums hover:underline">
        #{seq}
      </a>
      <div className="min-w-0 space-y-2">
        <EventBody event={event} index={index} />
        <RawRecord payload={payload} />
      </div>
    </li>
  );
}

function EventBody({ event, index }: { event: WireEvent; index: TimelineIndex }) {
  switch (event.type) {
    case 'model-step':
      return <ModelStepCard event={event} index={index} />;
    case 'tool-call-start':
    case 'tool-call-end':
    case 'tool-call-error':
      return <ToolCallBody event={event} index={index} />;
    case 'run-start':
      return <RunStart event={event} />;
    case 'run-resume': {
      const replayed = index.replayedSteps.get(event.seq);
      return (
        <>
          <EventHeader title={<ResumeTitle seq={event.seq} />} at={event.at}>
            <Chip>was {event.fromStatus}</Chip>
            <TraceChip trace={event.trace} />
          </EventHeader>
          <Note>
            A new invocation:{' '}
            {replayed === undefined ? 'the steps recorded before' : replayed === 0 ? 'no model step was recorded before; it' : `model steps 1–${replayed}`}{' '}
            {replayed === 0 ? 'starts from the first call' : 'are replayed from the journal, and recorded tool results are returned without executing'}.
          </Note>
        </>
      );
    }
    case 'tool-approval-request':
      return <ApprovalRequest event={event} index={index} />;
    case 'tool-approval-vote': {
      const call = index.calls.get(event.toolCallId);
      return (
        <>
          <EventHeader title={event.proposedInputHash ? `Arguments changed by ${event.by}` : `Approval counted from ${event.by}`} at={event.at}>
            {call?.toolName ? (
              <Chip className="font-mono">
                <VisibleText text={call.toolName} />
              </Chip>
            ) : null}
          </EventHeader>
          <Reason reason={event.reason} />
          {event.proposedInputHash ? (
            <>
              <PayloadText label="Arguments proposed" value={event.proposedInput} />
              <Note>Proposed under the tool’s approval rule: the approvals before are void; others approve these arguments as changed.</Note>
            </>
          ) : (
            <Note>One of the approvals the tool’s rule asks for; the call waits until the last one.</Note>
          )}
        </>
      );
    }
    case 'tool-approval-response': {
      const call = index.calls.get(event.toolCallId);
      const verdict = event.expired ? 'Approval expired' : event.approved ? `Approved by ${event.by}` : `Rejected by ${event.by}`;
      return (
        <>
          <EventHeader title={verdict} at={event.at}>
            {call?.toolName ? (
              <Chip className="font-mono">
                <VisibleText text={call.toolName} />
              </Chip>
            ) : null}
            {call?.request ? (
              <SeqLink seq={call.request.seq} className="text-xs">
                question #{call.request.seq}
              </SeqLink>
            ) : null}
          </EventHeader>
          <Reason reason={event.reason} />
          {event.expired ? <Note>Nobody decided in time; the run treats it as rejected.</Note> : null}
          {event.policy ? <Note>Decided by the run’s toolApproval policy; replays keep this decision even if the policy now answers otherwise.</Note> : null}
          {event.approved && event.approvedInput !== undefined ? (
            <>
              <PayloadText label="Approved arguments" value={event.approvedInput} />
              <Note>
                The call executes with these, not the model’s
                {event.editedBy ? <VisibleText text={`: ${event.editedBy} changed them, ${event.by} approved them`} /> : null}.
              </Note>
            </>
          ) : null}
          {!event.approved && !event.expired ? <Note>The model sees the refusal{event.reason ? ' and this reason' : ''} as the tool’s result.</Note> : null}
        </>
      );
    }
    case 'side-effect-check':
      return (
        <>
          <EventHeader title="Check after an unknown outcome" at={event.at}>
            <Chip>attempt {event.attempt}</Chip>
          </EventHeader>
          <p className="text-sm">
            <VisibleText
              text={
                event.result.done === true
                  ? 'The outside system says it was done: its answer is recorded as the result.'
                  : event.result.done === false
                    ? 'The outside system says it was not done: it runs again under the same key.'
                    : `The outside system could not say: ${event.result.reason}. The run is blocked until a person decides.`
              }
            />
          </p>
        </>
      );
    case 'side-effect-resolution':
      return (
        <>
          <EventHeader title={event.outcome === 'done' ? `Marked done by ${event.by}` : `Marked not done by ${event.by}`} at={event.at} />
          <Reason reason={event.reason} />
          {event.outcome === 'done' ? (
            <PayloadText label="Output given" value={event.output} />
          ) : (
            <Note>The next resume runs it again under the same idempotency key.</Note>
          )}
        </>
      );
    case 'tool-call-repair':
      return (
        <>
          <EventHeader title={event.repaired ? 'A tool call was repaired' : 'A tool call could not be repaired'} at={event.at}>
            <Chip>step {event.step + 1}</Chip>
            <Chip className="font-mono">
              <VisibleText text={event.toolCallId} />
            </Chip>
          </EventHeader>
          {event.repaired ? <PayloadText label="Repaired call" value={event.repaired} /> : null}
          <Note>Recorded once: replays use this repair and do not call repairToolCall again.</Note>
        </>
      );
    case 'replay-mismatch':
      return (
        <>
          <EventHeader
            title={event.kind === 'model-call' ? 'A replayed model call asked differently' : 'A replayed tool call has other arguments'}
            at={event.at}
          >
            {event.step !== undefined ? <Chip>step {event.step + 1}</Chip> : null}
          </EventHeader>
          <div className="grid gap-2 lg:grid-cols-2">
            <PayloadText label="Recorded" value={event.recorded} />
            <PayloadText label="Given now" value={event.given} />
          </div>
        </>
      );
    case 'run-suspend':
      return (
        <>
          <EventHeader title={SUSPEND_TITLE[event.status]} at={event.at} />
          <ul className="list-inside list-disc text-sm">
            {event.pending.map((item) => (
              <li key={item.toolCallId}>
                {PENDING_VERB[item.kind]}
                <code className="font-mono">
                  <VisibleText text={item.toolName} />
                </code>
                {item.kind === 'side-effect' ? <VisibleText text={` (${item.reason})`} /> : ''}
              </li>
            ))}
          </ul>
          <Note>
            <Link href="/inbox" className="text-link hover:underline">
              Decide in the inbox
            </Link>
          </Note>
        </>
      );
    case 'run-complete':
      return (
        <>
          <EventHeader title="Completed" at={event.at}>
            <Chip>
              finish: <VisibleText text={event.finishReason} />
            </Chip>
            <Chip>{event.steps} steps</Chip>
          </EventHeader>
          {event.text ? <PayloadText label="Answer" value={event.text} data-slot="final-text" /> : null}
        </>
      );
    case 'run-fail':
      return (
        <>
          <EventHeader title="Failed" at={event.at} />
          <PayloadText value={`${event.error.name}: ${event.error.message}`} />
        </>
      );
    case 'run-cancel':
      return (
        <>
          <EventHeader title={`Canceled by ${event.by}`} at={event.at} />
          <Reason reason={event.reason} />
        </>
      );
    case 'run-resume-request':
      return (
        <>
          <EventHeader title={`Resume ${event.resumeAt ? `scheduled for ${event.resumeAt}` : 'requested'} by ${event.by}`} at={event.at} />
          <Reason reason={event.reason} />
        </>
      );
    case 'run-migrate':
      return (
        <>
          <EventHeader title={`Migrated by ${event.by}`} at={event.at}>
            {event.fromVersion ? (
              <Chip className="font-mono">
                from <VisibleText text={event.fromVersion} />
              </Chip>
            ) : null}
            {event.toVersion ? (
              <Chip className="font-mono">
                to <VisibleText text={event.toVersion} />
              </Chip>
            ) : null}
          </EventHeader>
          <Reason reason={event.reason} />
          <Note>
            Changed: <VisibleText text={event.changed.join(', ') || 'nothing'} />. Recorded steps and finished calls stay as recorded; the run continues on this
            version from its first unrecorded step.
          </Note>
          {event.overridden?.length ? <PayloadText label="Overridden on purpose" value={event.overridden.join('\n')} /> : null}
        </>
      );
    case 'run-forked':
      return (
        <>
          <EventHeader title={`Forked at step ${event.atStep} by ${event.by}`} at={event.at}>
            <Link href={`/runs/${encodeRunSegment(event.childRunId)}`} className="text-link hover:underline" data-slot="fork-child">
              <VisibleText text={event.childRunId} />
            </Link>
          </EventHeader>
          <Reason reason={event.reason} />
        </>
      );
    case 'run-imported':
      return (
        <>
          <EventHeader title={`Imported by ${event.by}`} at={event.at} />
          <Note>
            From an export of run <VisibleText text={event.from.runId} /> made <VisibleText text={event.from.exportedAt} />
            {event.from.redacted
              ? ': redacted (secrets and arguments withheld), so the run is evidence only and is never executed here.'
              : '. Everything above was recorded in the journal it came from, with its own times.'}
          </Note>
        </>
      );
    case 'run-restarted':
      return (
        <>
          <EventHeader title={`Restarted by ${event.by}${event.newAttempt ? ' as a new attempt' : ''}`} at={event.at}>
            <Link href={`/runs/${encodeRunSegment(event.restartedAs)}`} className="text-link hover:underline" data-slot="restart-run">
              <VisibleText text={event.restartedAs} />
            </Link>
          </EventHeader>
          <Note>
            {event.newAttempt
              ? 'The new run does its side effects again under new keys.'
              : 'The new run answers repeats of this run’s side effects from its record (one of unknown outcome stops it until decided here).'}
          </Note>
        </>
      );
    case 'run-retry':
      return (
        <>
          <EventHeader
            title={`Attempt ${event.attempt} of ${event.attempts} failed: ${event.retryAt ? `next attempt at ${event.retryAt}` : 'no attempts left, waiting for a person'}`}
            at={event.at}
          />
          <PayloadText value={`${event.error.name}: ${event.error.message} (decided by ${event.by})`} />
        </>
      );
    case 'workflow-wait':
    case 'workflow-wait-end':
    case 'workflow-event':
      return <EventHeader title={compactLine(event)} at={event.at} />;
    default:
      return <EventHeader title={(event as { type: string }).type} at={(event as { at: string }).at} />;
  }
}

function RunStart({ event }: { event: WireEventOf<'run-start'> }) {
  const { input } = event;
  return (
    <>
      <EventHeader title="Run started" at={event.at}>
        {input.agent ? (
          <Chip>
            agent <VisibleText text={input.agent} />
          </Chip>
        ) : null}
        {input.agentVersion ? (
          <Chip className="font-mono">
            v <VisibleText text={input.agentVersion} />
          </Chip>
        ) : null}
        <Chip className="font-mono">
          <VisibleText text={`${input.provider}:${input.modelId}`} />
        </Chip>
        <TraceChip trace={event.trace} />
      </EventHeader>
      {input.forkOf ? (
        <Note data-slot="fork-of">
          Fork of{' '}
          <Link href={`/runs/${encodeRunSegment(input.forkOf.runId)}`} className="text-link hover:underline">
            <VisibleText text={input.forkOf.runId} />
          </Link>{' '}
          at step {input.forkOf.atStep}, by <VisibleText text={input.forkOf.by} />: “<VisibleText text={input.forkOf.reason} />”
          {input.forkOf.instruction !== undefined ? (
            <>
              {' '}
              · instruction: “<VisibleText text={input.forkOf.instruction} />”
            </>
          ) : null}{' '}
          · {input.forkOf.copiedEvents} events copied
        </Note>
      ) : null}
      {input.prompt !== undefined ? <PayloadText label="Prompt" value={input.prompt} /> : null}
      {input.messages !== undefined ? <PayloadText label="Messages" value={input.messages} /> : null}
      {input.toolNames?.length ? (
        <Note>
          Tools: <VisibleText text={input.toolNames.join(', ')} />
        </Note>
      ) : null}
    </>
  );
}

function ApprovalRequest({ event, index }: { event: WireEventOf<'tool-approval-request'>; index: TimelineIndex }) {
  const call = index.calls.get(event.toolCallId);
  return (
    <>
      <EventHeader
        title={
          <>
            <code className="font-mono">
              <VisibleText text={event.toolName} />
            </code>{' '}
            needs approval
          </>
        }
        at={event.at}
      >
        {event.expiresAt ? (
          <Chip>
            expires <VisibleText text={event.expiresAt} />
          </Chip>
        ) : null}
        {call?.stepSeq !== undefined ? (
          <SeqLink seq={call.stepSeq} className="text-xs">
            asked in step #{call.stepSeq}
          </SeqLink>
        ) : null}
      </EventHeader>
      <HiddenCharsWarning found={findHidden(payloadString(event.input))} />
      <PayloadText label="Arguments" value={event.input} />
      {call?.response ? (
        <Note>
          {call.response.approved ? 'Approved' : 'Rejected'} by <VisibleText text={call.response.by} />: <SeqLink seq={call.response.seq} />
        </Note>
      ) : (
        <Note>
          Waiting for a decision:{' '}
          <Link href="/inbox" className="text-link hover:underline">
            the inbox
          </Link>
          .
        </Note>
      )}
    </>
  );
}

/** A run-resume's title by how its invocation began: the run's first invocation is not a resume. */
function ResumeTitle({ seq }: { seq: number }) {
  const { invocations } = useTimelineMode();
  return <VisibleText text={invocationTitle(invocations.get(seq))} />;
}
