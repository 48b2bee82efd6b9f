'use client';

import { createContext, useContext } from 'react';
import type { Invocation } from '@/lib/durable/projection';

/**
 * How the timeline draws its events (`compact`: one line each, the default for long runs) and the run's
 * invocations by the seq that began each (run-invocations.ts), so a run-resume says what it was.
 */
export interface TimelineMode {
  compact: boolean;
  invocations: ReadonlyMap<number, Invocation>;
}

export const TimelineModeContext = createContext<TimelineMode>({ compact: false, invocations: new Map() });

export const useTimelineMode = () => useContext(TimelineModeContext);
