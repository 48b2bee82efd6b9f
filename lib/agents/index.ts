/**
 * The agent layer's public surface: define agents, list them in a registry, run one durably.
 * Sits on the runtime core (`@/lib/durable`) and nothing else of GNL.
 */
export { defineAgent, isAgent, AGENT_NAME, type Agent, type AgentDefinition, type AgentSettings } from './define-agent';
export type { AgentFingerprint } from './agent-version';
export { createAgentRegistry, toolDeclarations, toolOutputSchema, type AgentRegistry } from './registry';
export { runAgent, streamAgent, agentInputSchema, type AgentInput, type RunAgentOptions, type StreamAgentOptions } from './run-agent';
export { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy, type RetryPolicyInput } from './retry-policy';
export { UnknownAgentError, AgentDefinitionError, AgentInputError } from './errors';
