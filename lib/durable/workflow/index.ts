/**
 * Workflows (docs/workflows.md): a registered, versioned function of a typed input, run as a run on the
 * same journal, the same projection and the same door to side effects as an agent's run.
 *
 *   define-workflow.ts   defineWorkflow, its input and event schemas
 *   workflow-context.ts  the `wf` primitives: step (through the door), sleep, waitForEvent, child, all, now, random
 *   run-workflow.ts      one invocation: begin, replay, complete, fail or suspend (`waiting`)
 *   child-runs.ts        child ids from the job, a child's outcome from the journal, the starter port
 *   workflow-memory.ts   `wf.memory`: recall, remember, working memory, each a step through the door
 *   send-event.ts        journal.sendEvent's request and plan (one event id, once); workflow-name.ts the names' rule
 */
export { type ChildOutcome, type ChildRef, type ChildSpec, type ChildStarter, readChild } from './child-runs';
export { defineWorkflow, isWorkflow, parseWorkflowInput, type Workflow, type WorkflowDefinition, type WorkflowMemoryDeclaration } from './define-workflow';
export { WorkflowMemory, type WorkflowMemoryOptions } from './workflow-memory';
export type { StepContext, StepOptions } from './step-options';
export { parseEventPayload } from './event-payload';
export { WORKFLOW_NAME } from './workflow-name';
export { runWorkflow, type RunWorkflowOptions, type WaitingFor, waitingFor, type WorkflowResult, workflowRunInput } from './run-workflow';
export { planSendEvent, type SendEventRequest, sendEventRequestSchema } from './send-event';
export {
  type EventResult,
  type FanOutOptions,
  type WaitForEventOptions,
  WorkflowContext,
  WorkflowSuspended,
} from './workflow-context';
