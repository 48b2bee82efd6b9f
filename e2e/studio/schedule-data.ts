/**
 * The schedule the `long` Studio declares (agents/schedules.ts reads these from its environment, set in
 * playwright.config.ts) and seed-schedules.ts seeds runs of; schedules.spec.ts checks the page shows them.
 */
export const SCHEDULE = {
  id: 'support-questions',
  env: { GNL_DEMO_SCHEDULE_CRON: '0 9 * * 1-5', GNL_DEMO_SCHEDULE_TZ: 'Europe/Berlin', GNL_DEMO_SCHEDULE_MISSED: 'skip' },
  /** Slots the seed starts (each then canceled: that Studio's demo service is off) before it misses one. */
  seededRuns: 3,
} as const;
