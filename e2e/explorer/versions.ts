/**
 * Runs that outlive deploys (issue 15), explored: the agent scenarios (family `versions`) run as an
 * agent of several registered versions, started on v1 by runAgent and resumed on the version the
 * executor's runVersion picks, and an operator migrates them (migrateRun), forks them (forkRun) and
 * restarts them (restartRun: a new run of the same input, the old one canceled; issue 27) while they are
 * stopped at a random boundary (killed there), racing a live process at one of its boundaries, or once
 * they are done. Each version has a system prompt of its own, so the model server's requests say
 * which version asked:
 *   v1          the version runs start on (current);
 *   v2-prompt   a changed system prompt (safe);
 *   v3-tool     another prompt and an added read-only tool, never called (safe);
 *   v4-unsafe   another prompt and without `lookup`: unsafe once the run recorded a lookup (the preview
 *               refuses it; the operator forces it, the reason journaled as overridden).
 */
import type { LanguageModel, Tool } from 'ai';
import { stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { type AgentRegistry, createAgentRegistry, defineAgent } from '@/lib/agents';

export const VERSION_NAMES = ['v1', 'v2-prompt', 'v3-tool', 'v4-unsafe'] as const;
export type VersionName = (typeof VERSION_NAMES)[number];
/** The versions an operator migrates to. */
export const MIGRATION_TARGETS = ['v2-prompt', 'v3-tool', 'v4-unsafe'] as const satisfies readonly VersionName[];

/** Who the explorer's operator is, in every decision it journals. */
export const OPERATOR = 'explorer-operator';

export const SYSTEMS: Record<VersionName, string> = {
  v1: 'You are the explorer agent, version 1.',
  'v2-prompt': 'You are the explorer agent, version 2: a changed prompt.',
  'v3-tool': 'You are the explorer agent, version 3: it has an audit tool.',
  'v4-unsafe': 'You are the explorer agent, version 4: it has no lookup tool.',
};

/** A migration, a fork or a restart an operator makes, from the schedule's plan. */
export type VersionOp =
  | {
      kind: 'migrate';
      to: VersionName;
      /** Migrate although the preview refuses (an unsafe migration, on purpose). */
      force: boolean;
      /** The process it is made in (0: the first), and where: `before` it resumes the run (the run stopped where the previous process died), or racing it at that boundary. */
      invocation: number;
      boundary: number | 'before';
    }
  | {
      kind: 'fork';
      /** The fork point: model step 1 + floor(fraction × the steps recorded when the operator forks). */
      fraction: number;
      /** An operator's instruction at the fork point (docs/fork.md), or none. */
      instruction?: string;
      /** `after`: once the parent settled. */
      invocation: number | 'after';
      boundary: number | 'before';
    }
  | {
      /** restartRun: the run's input as a new run of the job (its repeats answered from the old run's record), the old run canceled. */
      kind: 'restart';
      /** `after`: once the old run settled. */
      invocation: number | 'after';
      boundary: number | 'before';
    };

export function agentName(scenario: string): string {
  return `explorer-${scenario}`;
}

/** The agent's versions, v1 current: `tools` are the scenario's. */
export function explorerRegistry(args: { scenario: string; model: LanguageModel; tools: Record<string, Tool> }): {
  registry: AgentRegistry;
  versionOf: (name: VersionName) => string;
} {
  const { scenario, model, tools } = args;
  const audit = tool({ description: 'Notes an audit line.', inputSchema: z.object({ line: z.string() }), execute: async ({ line }) => ({ noted: line }) });
  const { lookup: _dropped, ...withoutLookup } = tools;
  const toolsOf: Record<VersionName, Record<string, Tool>> = { v1: tools, 'v2-prompt': tools, 'v3-tool': { ...tools, audit }, 'v4-unsafe': withoutLookup };
  const agents = VERSION_NAMES.map((name) =>
    defineAgent({ name: agentName(scenario), model, tools: toolsOf[name], system: SYSTEMS[name], stopWhen: stepCountIs(10) }),
  );
  const byName = new Map(VERSION_NAMES.map((name, i) => [name, agents[i]?.version as string]));
  return {
    registry: createAgentRegistry(agents, { current: { [agentName(scenario)]: byName.get('v1') as string } }),
    versionOf: (name) => byName.get(name) as string,
  };
}

export function describeVersionOps(ops: readonly VersionOp[]): string {
  return ops
    .map((op) => {
      const at = `@${op.invocation}${op.invocation === 'after' ? '' : `.${op.boundary}`}`;
      if (op.kind === 'migrate') return `migrate→${op.to}${op.force ? '(force)' : ''}${at}`;
      if (op.kind === 'restart') return `restart${at}`;
      return `fork${op.instruction ? '+instruction' : ''}(${op.fraction.toFixed(2)})${at}`;
    })
    .join(',');
}

/**
 * 1 to 3 migrations and forks for a run of `boundaries` boundaries and `kills` kills, each made before a
 * resume (after a kill), racing a process at a boundary, or (forks) once the run is done; then, drawn
 * last (the schedules of seeds logged before it keep their other draws), at most one restart, made the
 * same ways. One: a second restart of the same run would not see the first (the old run names neither).
 */
export function drawVersionOps(random: () => number, boundaries: number, kills: number): VersionOp[] {
  const pick = (n: number) => Math.floor(random() * n);
  const ops: VersionOp[] = [];
  for (let n = 1 + pick(3); n > 0; n--) {
    const invocation = pick(kills + 1);
    const boundary = invocation > 0 && random() < 0.6 ? 'before' : pick(boundaries);
    if (random() < 0.5) {
      const to = MIGRATION_TARGETS[pick(MIGRATION_TARGETS.length)] as VersionName;
      ops.push({ kind: 'migrate', to, force: to === 'v4-unsafe', invocation, boundary });
    } else {
      const fraction = random();
      const instruction = random() < 0.3 ? 'Do the same again, carefully.' : undefined;
      ops.push({
        kind: 'fork',
        fraction,
        ...(instruction ? { instruction } : {}),
        ...(random() < 0.3 ? { invocation: 'after', boundary: 'before' } : { invocation, boundary }),
      });
    }
  }
  if (random() < 0.4) {
    const invocation = pick(kills + 1);
    const boundary = invocation > 0 && random() < 0.6 ? 'before' : pick(boundaries);
    ops.push({ kind: 'restart', ...(random() < 0.3 ? { invocation: 'after', boundary: 'before' } : { invocation, boundary }) });
  }
  return ops;
}
