/**
 * The run projection, browser-safe: the one fold of a run's journal (run-state.ts: status, pending,
 * operations, approvals, decisions) and the one decision tree for its tool calls (run-plan.ts: what the
 * gate does, what the next resume will do). Beside them: call-history.ts (the timeline's links),
 * run-totals.ts, run-invocations.ts and run-waterfall.ts (the run on its clock), run-timers.ts (deadlines
 * and scheduled resumes), run-summary.ts (the runs row an append updates). The Studio's pages fold the
 * events they hold with it; it imports nothing but itself (import-arrows.test.ts checks it stays so), and
 * tests/projection-only.test.ts keeps every branch on an event type in here.
 */
export { type ApprovalState, isWholeRun, type RunMigration, RunState, runStartedAt, statusAfter, type ToolOperation } from './run-state';
export {
  approvalVerdict,
  executionVerdict,
  fromLastModelStep,
  type PlannedAction,
  type PlannedCall,
  planResume,
  type ToolDeclaration,
  unknownOutcomeRule,
} from './run-plan';
export { buildCallHistory, type CallHistory, type CallRecord, replaysAfter } from './call-history';
export { addToTotals, EMPTY_TOTALS, type RunTotals, stepModelTokens } from './run-totals';
export { addModelStep, isMetered, type ModelTokens } from '../usage/model-tokens';
export { addToInvocations, type Invocation, type InvocationBegin, type InvocationEnd, NO_INVOCATIONS, type RunInvocations } from './run-invocations';
export {
  addToWaterfall,
  EMPTY_WATERFALL,
  type RunWaterfall,
  type WaterfallBar,
  type WaterfallGap,
  type WaterfallOutcome,
  waterfallGaps,
  waterfallSpan,
  trimWaterfall,
} from './run-waterfall';
export type { RetryRecord, ScheduledResume } from './run-state';
export { type RunTimer, runTimers } from './run-timers';
export { type RunSummary, type SummaryChange, summaryChange } from './run-summary';
