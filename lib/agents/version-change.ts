/**
 * What a new agent version may take over from a run started on an earlier one without a person
 * (`onChange: 'continue'`). The run's recorded steps stay as recorded and replay from the journal; the
 * new version only asks the steps not yet recorded. So a change is absorbed when nothing recorded reads
 * differently under the new version:
 *   - `system` (and `instructions`): the next model step is asked with the new prompt;
 *   - `toolNames`: tools added, or removed when the run never called them.
 * Never absorbed: a changed tool input schema (a recorded call's arguments may not parse the same), a
 * removed tool the run called, a changed model or provider (recorded steps may hold provider-specific
 * parts), and the run's own input (prompt, messages, conversation, agent name). Those runs stay pinned
 * to their version, or wait for a person to migrate them (migrateRun, after a preview).
 */
import type { Divergence, RunState } from '@/lib/durable';
import type { Agent } from './define-agent';

const PROMPT_FIELDS = new Set(['system', 'instructions']);

export type ChangeVerdict = { absorbed: true } | { absorbed: false; because: string[] };

/** Whether `agent` (the new version) absorbs these start-input differences of the run folded in `state`. */
export function absorbableChange(args: { differences: readonly Divergence[]; state: RunState; agent: Agent }): ChangeVerdict {
  const { differences, state, agent } = args;
  const because: string[] = [];
  for (const difference of differences) {
    if (PROMPT_FIELDS.has(difference.field)) continue;
    if (difference.field === 'toolNames') {
      const missing = [...calledToolNames(state)].filter((name) => !(name in (agent.tools as object)));
      if (missing.length > 0) because.push(`the run called ${missing.join(', ')}, which version ${agent.version} does not have`);
      continue;
    }
    if (difference.field.startsWith('tool schema: ')) because.push(`${difference.field} changed: recorded calls may not read the same`);
    else because.push(`${difference.field} changed: only the system prompt and unused tools are taken over`);
  }
  return because.length === 0 ? { absorbed: true } : { absorbed: false, because };
}

/** Every tool the run's recorded model steps called (what replay hands to the agent's tools again). */
export function calledToolNames(state: RunState): Set<string> {
  const names = new Set<string>();
  for (const { result } of state.recordedSteps()) {
    const content = (result as { content?: unknown } | undefined)?.content;
    for (const part of Array.isArray(content) ? content : []) {
      const p = part as { type?: unknown; toolName?: unknown; providerExecuted?: unknown };
      if (p?.type === 'tool-call' && typeof p.toolName === 'string' && p.providerExecuted !== true) names.add(p.toolName);
    }
  }
  return names;
}

/** runDurable's acceptChange for an agent: a 'continue' version takes the run over when it absorbs the change; a 'pinned' one never does. */
export function acceptChangeOf(agent: Agent) {
  if (agent.onChange !== 'continue') return undefined;
  return ({ differences, state }: { differences: Divergence[]; state: RunState }) => {
    if (!absorbableChange({ differences, state, agent }).absorbed) return undefined;
    return { by: 'gnl', reason: `version ${agent.version} of ${agent.name} declares onChange 'continue'` };
  };
}
