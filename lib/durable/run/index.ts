/**
 * The run loop. runDurable (run-durable.ts) is the AI SDK's own generateText loop with three things
 * added: a recording model (../model), journaled tools and a tool gate (../tools). An invocation begins in
 * begin-invocation.ts (load the journal, refuse a changed start input: run-input.ts, or journal a
 * migration), holds its state in run-session.ts (outcome-room.ts keeps room under the event limit for each
 * started side effect's outcome), and ends in a run-complete, run-suspend or run-fail.
 * A completed run answers from its record without running the loop (completed-answer.ts, built on
 * completed-result.ts); durable-result.ts is what either answers. DurableAgent (durable-agent.ts) is
 * the SDK's Agent shape over runDurable and streamDurable (../stream); journaled-failure.ts marks the
 * failure an invocation recorded; replay-callbacks.ts adds `replayed` to the SDK's step callbacks.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export {
  runDurable,
  DEFAULT_MAX_STEPS,
  type RunDurableOptions,
  type DurableResult,
  type PendingApproval,
  type PendingToolResult,
  type Replayed,
} from './run-durable';
export { DurableAgent, type DurableAgentCall, type DurableAgentSettings } from './durable-agent';
export { journaledFailureOf, type JournaledFailure } from './journaled-failure';
export { buildRunInput, runInputDifferences, type RunInputSource } from './run-input';
export { replayDurable } from './run-durable';
export { RunSession } from './run-session';
