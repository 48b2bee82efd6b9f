import { runsEventsResponse } from '@/lib/studio/live';

/** Every run's summary as it changes, as server-sent events. */
export function GET(request: Request) {
  return runsEventsResponse({ signal: request.signal });
}
