/**
 * Which registered version of its agent a recorded run continues on, decided from the run projection
 * (its start input, or its last migration's) and the registry, without running anything. The executor
 * invokes the run with it; the Studio and `gnl show` say it; the stranded list is the runs it finds
 * no version for.
 *
 * In order: the current version, when the run's input matches it ('pinned' to it); the current version
 * again when it declares onChange 'continue' and absorbs the difference ('continues': it takes the run
 * over at its next step, journaled as run-migrate by gnl); any other registered version the input
 * matches ('pinned', the run's own first); else 'stranded': no deployed version can continue it until a
 * person migrates it (migrateRun) or abandons it.
 */
import { absorbableChange, type Agent, type AgentRegistry } from '@/lib/agents';
import { type Divergence, RunDivergedError, type RunInput, type RunState, runInputDifferences } from '@/lib/durable';
import { versionStartInput } from './start-input';

export type RunVersion =
  | { kind: 'pinned'; agent: Agent }
  | { kind: 'continues'; agent: Agent; differences: Divergence[] }
  /** `agent` is the current version, `differences` the run's input against it, `because` why it does not absorb them. */
  | { kind: 'stranded'; agent: Agent; differences: Divergence[]; because: string[] };

export async function runVersion(args: { registry: AgentRegistry; state: RunState; runId: string }): Promise<RunVersion> {
  const { registry, state, runId } = args;
  const recorded = state.input;
  if (!recorded?.agent) throw new RunDivergedError({ runId, differences: [{ field: 'agent', recorded: recorded?.agent, given: undefined }] });
  const current = registry.getAgent(recorded.agent);
  const differences = await differencesFrom(recorded, current);
  if (differences.length === 0) return { kind: 'pinned', agent: current };
  const verdict = current.onChange === 'continue' ? absorbableChange({ differences, state, agent: current }) : undefined;
  if (verdict?.absorbed) return { kind: 'continues', agent: current, differences };
  const others = registry.listVersions(recorded.agent).filter((agent) => agent !== current);
  // The version the run records first: two versions can match one old input (one that predates tool schemas).
  others.sort((a, b) => Number(b.version === recorded.agentVersion) - Number(a.version === recorded.agentVersion));
  for (const agent of others) if ((await differencesFrom(recorded, agent)).length === 0) return { kind: 'pinned', agent };
  const because =
    verdict && !verdict.absorbed ? verdict.because : [`version ${current.version} declares onChange 'pinned' and no registered version matches the run`];
  return { kind: 'stranded', agent: current, differences, because };
}

/** How the run's input differs from what `agent` would record for it. */
export async function differencesFrom(recorded: RunInput, agent: Agent): Promise<Divergence[]> {
  return runInputDifferences(recorded, await versionStartInput(agent, recorded));
}
