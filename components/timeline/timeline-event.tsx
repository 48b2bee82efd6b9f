import { JsonPayload } from '@/components/runs/json-payload';
import { Time } from '@/components/ui/time';
import type { WireEvent } from '@/lib/studio/wire';
import type { TimelineIndex } from './timeline-index';

/** One journal event: sequence number (an anchor, #seq-N), type, commit time, payload. */
export function TimelineEvent({ event }: { event: WireEvent; index: TimelineIndex }) {
  const { seq, at, type, ...payload } = event;
  return (
    <li id={`seq-${seq}`} data-testid="run-event" data-seq={seq} data-type={type} className="grid scroll-mt-16 gap-2 px-4 py-3 sm:grid-cols-[4rem_1fr]">
      <a href={`#seq-${seq}`} className="font-mono text-xs text-muted-foreground tabular-nums hover:underline">
        #{seq}
      </a>
      <div className="min-w-0 space-y-1.5">
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <code className="font-mono text-sm font-medium">{type}</code>
          <Time value={at} className="text-xs text-muted-foreground" />
        </div>
        {Object.keys(payload).length > 0 ? <JsonPayload value={payload} /> : null}
      </div>
    </li>
  );
}
