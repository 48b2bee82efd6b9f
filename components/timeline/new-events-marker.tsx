'use client';

import { Button } from '@/components/ui/button';
import { cn } from '@/lib/utils';

/** Shown while new events arrived below a person who has scrolled up; a click takes them to the first one. */
export function NewEventsMarker({ count, onShow, className, ...props }: React.ComponentProps<typeof Button> & { count: number; onShow: () => void }) {
  if (count <= 0) return null;
  return (
    <Button
      type="button"
      data-testid="new-events-marker"
      onClick={onShow}
      className={cn('fixed bottom-6 left-1/2 z-30 -translate-x-1/2 rounded-full shadow-lg', className)}
      {...props}
    >
      ↓ {count} new {count === 1 ? 'event' : 'events'}
    </Button>
  );
}
