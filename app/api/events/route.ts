import { operatorOrRefusal, sessionStillOn } from '@/lib/studio/auth/session';
import { runsEventsResponse } from '@/lib/studio/live/live';

/** Every run's summary as it changes, as server-sent events. */
export async function GET(request: Request) {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  return runsEventsResponse({ signal: request.signal, stillAuthorized: () => sessionStillOn(auth.session), holder: auth.operator.id });
}
