/**
 * Every state a run can be in. `waiting`: a workflow sleeps, waits for an event or for its child runs
 * (lib/durable/workflow), holding no worker.
 */
/** Every state a run can be in. Defined once; the journal, the executors and the Studio all use this union. */
export const RUN_STATUSES = ['running', 'waiting-approval', 'waiting-tool-result', 'waiting', 'blocked', 'completed', 'failed', 'canceled'] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

export function isRunStatus(value: unknown): value is RunStatus {
  return typeof value === 'string' && (RUN_STATUSES as readonly string[]).includes(value);
}
