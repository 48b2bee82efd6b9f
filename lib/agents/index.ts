/**
 * The agent layer's public surface: define agents, list them in a registry, run one durably.
 * Sits on the runtime core (`@/lib/durable`) and nothing else of GNL.
 */
export {
  defineAgent,
  isAgent,
  AGENT_NAME,
  retentionDaysSchema,
  type Agent,
  type AgentDefinition,
  type AgentMemory,
  type AgentSettings,
  type OnChange,
} from './define-agent';
export type { AgentFingerprint } from './agent-version';
export {
  createAgentRegistry,
  toolDeclarations,
  toolDeclarationsOf,
  toolInputSchema,
  toolLookupOf,
  toolOutputSchema,
  type AgentRegistry,
  type AgentRegistryOptions,
} from './registry';
export { absorbableChange, calledToolNames, type ChangeVerdict } from './version-change';
export { planMigration, type MigrationPlan, type KeptCall, type RerunCall } from './migration-plan';
export { runAgent, streamAgent, agentInputSchema, agentRunMemory, type AgentInput, type RunAgentOptions, type StreamAgentOptions } from './run-agent';
export { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy, type RetryPolicyInput } from './retry-policy';
export { UnknownAgentError, AgentDefinitionError, AgentInputError } from './errors';
export { describeWorkflow, jsonSchemaOf, type WorkflowDescription } from './workflow-schemas';
export {
  defineSchedule,
  defineSchedules,
  scheduleRunId,
  scheduleRunNowId,
  scheduleRunPrefix,
  DEFAULT_GRACE_MS,
  type Schedule,
  type ScheduleDefinition,
  type MissedSlots,
  type SlotOverlap,
} from './define-schedule';
export { slotsDue, nextSlot, MAX_SLOTS_PER_TICK, type SlotsDue } from './slot-times';
