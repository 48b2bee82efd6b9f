/** stub */
import type { Census, PlannedSchedule } from './explore';
export function workflowSchedules(_censuses: readonly Census[]): PlannedSchedule[] {
  return [];
}
