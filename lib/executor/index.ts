/**
 * The executor layer: runs started by agent name, executed in the background by the Studio's server
 * (in-process) or by a pool of workers sharing one Postgres. The CLI and the Studio's server actions
 * call these.
 */
export { startRun, type StartRunOptions, type StartedRun } from './start-run';
export {
  resumeRun,
  scheduleResume,
  cancelRun,
  abandonRun,
  restartRun,
  type ControlledRun,
  type OperatorRequest,
  type ResumeRunRequest,
  type ScheduleResumeRequest,
  type RestartRequest,
} from './run-control';
export { Executor, type ExecutorOptions, type ExecutorEvent } from './executor';
export { getExecutor, stopExecutor } from './in-process';
export { queueEntry } from './queue-entry';
export type { QueueEntry } from './run-queue';
export type { ExecutorContext, StorageContext } from './context';
export type { AroundInvocation, InvokedRun } from './around-invocation';
export { RunNotResumableError, WorkersNeedPostgresError, InvocationStoppedError, type NotResumableReason } from './errors';
