import type { CallRecord } from './timeline-index';
import { formatDuration, SeqLink } from './event-parts';
import { VisibleText } from '@/components/ui/visible-text';

/** Where a tool call stands, linked to the events that say so (its result, error, approval, resolution). */
export function CallOutcome({ call }: { call: CallRecord | undefined }) {
  if (!call) return <span className="text-muted-foreground">no result recorded yet</span>;
  const parts: React.ReactNode[] = [];
  if (call.request) {
    parts.push(
      <span key="request">
        approval asked <SeqLink seq={call.request.seq} />
      </span>,
    );
  }
  if (call.response) {
    const verdict = call.response.expired
      ? 'expired (treated as rejected)'
      : call.response.approved
        ? `approved by ${call.response.by}`
        : `rejected by ${call.response.by}`;
    parts.push(
      <span key="response">
        <VisibleText text={verdict} /> <SeqLink seq={call.response.seq} />
      </span>,
    );
  } else if (call.request) {
    parts.push(
      <span key="waiting" className="font-medium text-amber-700 dark:text-amber-300">
        awaits a decision
      </span>,
    );
  }
  if (call.resolution) {
    parts.push(
      <span key="resolution">
        marked {call.resolution.outcome} by <VisibleText text={call.resolution.by} /> <SeqLink seq={call.resolution.seq} />
      </span>,
    );
  }
  const lastError = call.errors[call.errors.length - 1];
  if (call.end) {
    const duration = formatDuration(call.end.durationMs);
    parts.push(
      <span key="end">
        returned{duration ? ` in ${duration}` : ''} ({call.end.source}) <SeqLink seq={call.end.seq} />
      </span>,
    );
  } else if (lastError) {
    parts.push(
      <span key="error" className="text-red-700 dark:text-red-300">
        threw <VisibleText text={lastError.error.name} /> <SeqLink seq={lastError.seq} />
      </span>,
    );
  } else if (call.starts.length > 0 && !call.resolution) {
    const start = call.starts[call.starts.length - 1];
    parts.push(
      <span key="start" className="font-medium text-orange-700 dark:text-orange-300">
        started <SeqLink seq={start?.seq ?? 0} />, no outcome recorded
      </span>,
    );
  }
  if (parts.length === 0)
    parts.push(
      <span key="none" className="text-muted-foreground">
        no result recorded yet
      </span>,
    );
  return (
    <span data-slot="call-outcome" className="inline-flex flex-wrap gap-x-2 gap-y-0.5">
      {parts.flatMap((part, i) =>
        i === 0
          ? [part]
          : [
              <span key={`sep-${i}`} aria-hidden className="text-muted-foreground">
                ·
              </span>,
              part,
            ],
      )}
    </span>
  );
}
