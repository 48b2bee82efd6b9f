/**
 * Tools and the door they go through. gnlTool (gnl-tool.ts) declares a tool's side effect, idempotency,
 * check and lookup; journaledTool (journaled-tool.ts) wraps every execute: the start is durable before
 * execute runs, the outcome is journaled, an unknown outcome is never re-executed on a guess
 * (unknown-outcome.ts). toolGate (tool-gate.ts) sits on the SDK's toolApproval hook and acts on the
 * projection's plan (../projection/run-plan.ts). askPerson (ask-person.ts): a tool a person answers;
 * subAgentTool (sub-agent.ts): a tool another agent answers, as a child run.
 * related-effects.ts: the job's other runs (a fork's parent, a restarted run) whose recorded work a call repeats.
 * output-check.ts checks outputs against a tool's schema; model-json.ts refuses output the model cannot read;
 * unencodable-output.ts records a side effect's such output as performed, with a marker in its place.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export { gnlTool, toolDeclaration, toolLookup, type GnlToolOptions, type CheckContext, type CheckResult, type LookupResult } from './gnl-tool';
export { askPerson } from './ask-person';
export { type SubAgentDeclaration, type SubAgentOutput, subAgentInput, subAgentOf, subAgentOutput, subAgentRunId, subAgentTool } from './sub-agent';
export { checkOutputSchema, type OutputCheck, assertOutputMatchesSchema } from './output-check';
export { journaledTool, type ToolRetry } from './journaled-tool';
export { toolGate } from './tool-gate';
export { hasRelatedRuns, type JobRun, jobEffects, jobNeighbours, jobRuns, matchRelated, relatedEffects, type RelatedEffect } from './related-effects';
