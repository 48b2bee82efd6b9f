'use client';

import { createContext, useContext } from 'react';
import type { StreamStatus } from './use-event-stream';
import { useRunsLive } from './use-runs-live';

const RunsLiveStatus = createContext<StreamStatus | undefined>(undefined);

/**
 * The Studio layout's one stream of every run's summary (useRunsLive), around every page, for the whole tab:
 * the nav's inbox count reads the cache it keeps current, the runs list and the inbox also its status, so a
 * tab opens one such stream whatever page it shows (browsers allow six connections per host over HTTP/1.1).
 */
export function RunsLive({ children }: { children: React.ReactNode }) {
  const status = useRunsLive();
  return <RunsLiveStatus.Provider value={status}>{children}</RunsLiveStatus.Provider>;
}

/** The status of the layout's runs stream (RunsLive); a component outside it is a mistake, said at once. */
export function useRunsLiveStatus(): StreamStatus {
  const status = useContext(RunsLiveStatus);
  if (status === undefined) throw new Error('useRunsLiveStatus needs <RunsLive> above it (the Studio layout has it).');
  return status;
}
