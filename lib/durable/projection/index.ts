/**
 * The run projection's browser-safe entry: the one fold of a run's journal (run-state.ts) and the one
 * decision tree for its tool calls (run-plan.ts). The Studio's pages fold the events they hold with it;
 * it imports nothing but itself (import-arrows.test.ts checks it stays so).
 */
export { type ApprovalState, type RunMigration, RunState, statusAfter, type ToolOperation } from './run-state';
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
