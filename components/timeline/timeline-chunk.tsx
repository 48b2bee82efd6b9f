'use client';

import { useEffect } from 'react';
import { CHUNK_SIZE } from '@/lib/studio/reads/timeline-window';
import type { WireEvent } from '@/lib/studio/reads/wire';
import type { TimelineIndex } from './timeline-index';
import { TimelineEvent } from './timeline-event';
import { useInView } from './use-in-view';

const NEAR_PX = 1_200;

function isNear(element: Element | null): boolean {
  if (!element) return false;
  const { top, bottom } = element.getBoundingClientRect();
  return bottom > -NEAR_PX && top < window.innerHeight + NEAR_PX;
}

/**
 * A chunk of events before the tail. Until it is loaded it is a placeholder of roughly its height that
 * asks for its events when it comes near the viewport, so a long journal is read as the person scrolls.
 */
export function TimelineChunk({
  chunk,
  events,
  error,
  index,
  onNear,
}: {
  chunk: number;
  events: WireEvent[] | undefined;
  error: Error | null;
  index: TimelineIndex;
  onNear: (chunk: number) => void;
}) {
  const [ref, near] = useInView<HTMLLIElement>(`${NEAR_PX}px`);
  useEffect(() => {
    // `near` is the observer's last report, which can predate the latest layout (a chunk above just
    // rendered and pushed this one far down): ask only if it is near now.
    if (near && !events && isNear(ref.current)) onNear(chunk);
  }, [near, events, chunk, onNear, ref]);

  const first = chunk * CHUNK_SIZE + 1;
  if (!events) {
    return (
      <li ref={ref} data-testid="timeline-chunk-placeholder" data-chunk={chunk} className="min-h-[60vh] px-4 py-6 text-xs text-muted-foreground">
        {error ? `Events #${first}–#${first + CHUNK_SIZE - 1} could not be read: ${error.message}` : `Events #${first}–#${first + CHUNK_SIZE - 1}…`}
      </li>
    );
  }
  return (
    <>
      {events.map((event) => (
        <TimelineEvent key={event.seq} event={event} index={index} />
      ))}
    </>
  );
}
