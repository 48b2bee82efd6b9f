/**
 * The agents this deployment runs, by name. A run records its agent's name; whoever resumes it (the
 * Studio's server, a worker, the CLI) finds the agent here. One file per agent in this folder; list
 * each one below, agents first, then workflows.
 */
import { createAgentRegistry } from '@/lib/agents';
import { support, supportFourEyes, supportUnchecked } from './support';
import { supportFlow } from './support-flow';

/** The agents and the workflows (docs/workflows.md) this deployment runs. */
export const registry = createAgentRegistry([support, supportUnchecked, supportFourEyes], { workflows: [supportFlow] });

/** The name of the support agent without `check` (the Demo page starts runs on it by choice). */
export { SUPPORT_FOUR_EYES, SUPPORT_UNCHECKED } from './support';

/** The agents started on a cron schedule (agents/schedules.ts), checked on first call: every executor ticks them. */
export { schedules } from './schedules';

/** The agent registered under `name`; UnknownAgentError naming the known ones otherwise. */
export const getAgent = registry.getAgent;
/** Every registered agent, sorted by name. */
export const listAgents = registry.listAgents;
