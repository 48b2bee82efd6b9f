/**
 * The timeline's links across events: the run projection's call history (lib/durable/projection/call-history.ts)
 * over the wire events the page holds.
 */
import { buildCallHistory, type CallHistory, type CallRecord as CallRecordOf, replaysAfter } from '@/lib/durable/projection';
import type { WireEvent } from '@/lib/studio/reads/wire';

export type CallRecord = CallRecordOf<WireEvent>;
export type TimelineIndex = CallHistory<WireEvent>;
export const buildTimelineIndex = (events: readonly WireEvent[]): TimelineIndex => buildCallHistory(events);
export { replaysAfter };
