import { Time } from '@/components/ui/time';
import type { RecordedEvent } from '@/lib/durable';
import { cn } from '@/lib/utils';
import { JsonPayload } from './json-payload';

/** The journal of a run as an ordered list: sequence number, type, commit time, payload. Each event has an anchor (#seq-N). */
export function RunEventsList({ events, className, ...props }: React.ComponentProps<'ol'> & { events: readonly RecordedEvent[] }) {
  return (
    <ol data-testid="run-events" className={cn('divide-y rounded-lg border', className)} {...props}>
      {events.map((event) => {
        const { seq, at, type, ...payload } = event;
        return (
          <li key={seq} id={`seq-${seq}`} data-testid="run-event" data-seq={seq} data-type={type} className="grid gap-2 px-4 py-3 sm:grid-cols-[4rem_1fr]">
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
      })}
    </ol>
  );
}
