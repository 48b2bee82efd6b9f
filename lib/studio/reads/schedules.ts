/**
 * The Schedules page's read: the deployment's schedules (agents/schedules.ts) and those any executor has
 * ticked, with next slot, last run and recent runs (lib/executor listSchedules), as plain values for a
 * server component. Server-only: it opens the storage the environment names.
 */
import 'server-only';
import { schedules } from '@/agents';
import { storageFromEnv } from '@/lib/durable/storage';
import { listSchedules, type ScheduleView } from '@/lib/executor';

export type { ScheduleView };

export function loadSchedules(): Promise<ScheduleView[]> {
  return listSchedules({ storage: storageFromEnv(), schedules: schedules(), recentRuns: 5 });
}
