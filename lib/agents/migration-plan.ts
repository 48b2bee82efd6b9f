/**
 * What migrating a run to another version of its agent would do, read from the run projection without
 * running anything: the preview a person confirms (migrateRun's previewMigration, `gnl migrate
 * --dry-run`, the Studio) and the check migrateRun makes again under the run's hold.
 *
 * Kept: every call with a recorded result (its output or final error and its idempotency key stay; it
 * never executes again, on any version). Run again: the calls of the last recorded step that have no
 * result yet, as the tool gate will decide them with the new version's tools (planResume), and then
 * the first unrecorded model step, asked by the new version.
 *
 * Refused, unless a person overrides it on purpose (force, with a reason): a recorded call to a tool
 * the new version does not have, or whose recorded arguments the new version's input schema does not
 * accept. On replay the SDK parses every recorded call again with the new tools; such a call would
 * reach the model as an error instead of its recorded result, a history the run never had.
 */
import { safeValidateTypes } from '@ai-sdk/provider-utils';
import { asSchema, type Tool } from 'ai';
import { type Divergence, type PlannedAction, planResume, type RunState } from '@/lib/durable';
import type { Agent } from './define-agent';
import { toolDeclarationsOf } from './registry';

export interface KeptCall {
  toolCallId: string;
  toolName: string;
  idempotencyKey: string;
  /** What is recorded: an output, or a final error the model saw. */
  outcome: 'output' | 'error';
}

export interface RerunCall {
  toolCallId: string;
  toolName: string;
  idempotencyKey?: string;
  action: PlannedAction;
  why: string;
  /** The new version's tool of this name differs (input schema) or is gone. */
  toolChanged: boolean;
}

export interface MigrationPlan {
  /** The start-input fields that differ, recorded and given. */
  changed: Divergence[];
  /** Every finished call: replayed from the journal, never executed again. */
  kept: KeptCall[];
  /** The unfinished calls of the last recorded step, as the new version's tool gate will take them. */
  reruns: RerunCall[];
  /** The first model step the new version asks (0-based): every step before it replays as recorded. */
  nextStep: number;
  /** Why the migration would be unsafe; empty when it is safe. Each can be overridden on purpose (force). */
  refusals: string[];
}

export async function planMigration(args: { state: RunState; agent: Agent; differences: Divergence[]; now?: number }): Promise<MigrationPlan> {
  const { state, agent, differences } = args;
  const tools = agent.tools as Record<string, Tool>;
  const changedSchemas = new Set(differences.filter((d) => d.field.startsWith('tool schema: ')).map((d) => d.field.slice('tool schema: '.length)));
  const kept: KeptCall[] = [];
  for (const op of state.operations.values()) {
    if (!op.result) continue;
    for (const toolCallId of op.toolCallIds) kept.push({ toolCallId, toolName: op.toolName, idempotencyKey: op.idempotencyKey, outcome: op.result.kind });
  }
  const reruns = planResume({ state, declarations: toolDeclarationsOf(agent), now: args.now ?? Date.now() })
    .filter((call) => call.action !== 'replays')
    .map((call) => ({
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      ...(call.idempotencyKey ? { idempotencyKey: call.idempotencyKey } : {}),
      action: call.action,
      why: call.why,
      toolChanged: changedSchemas.has(call.toolName) || !(call.toolName in tools),
    }));
  const refusals: string[] = [];
  for (const call of recordedCalls(state)) {
    const tool = tools[call.toolName];
    if (!tool) {
      refusals.push(`recorded call ${call.toolCallId} (step ${call.step + 1}) is to ${call.toolName}, which version ${agent.version} does not have`);
      continue;
    }
    if (!changedSchemas.has(call.toolName)) continue;
    const parsed = await safeValidateTypes({ value: call.input, schema: asSchema(tool.inputSchema as Parameters<typeof asSchema>[0]) });
    if (!parsed.success) {
      refusals.push(
        `recorded call ${call.toolCallId} (step ${call.step + 1}) to ${call.toolName}: its recorded arguments do not match version ${agent.version}'s input schema`,
      );
    }
  }
  return { changed: differences, kept, reruns, nextStep: state.modelSteps.length, refusals };
}

/** Every tool call of the recorded model steps, with the arguments the journal holds for it. */
function recordedCalls(state: RunState): { step: number; toolCallId: string; toolName: string; input: unknown }[] {
  const calls: { step: number; toolCallId: string; toolName: string; input: unknown }[] = [];
  for (const { step, result } of state.recordedSteps()) {
    const content = (result as { content?: unknown } | undefined)?.content;
    for (const part of Array.isArray(content) ? content : []) {
      const p = part as { type?: unknown; toolCallId?: unknown; toolName?: unknown; input?: unknown; providerExecuted?: unknown };
      if (p?.type !== 'tool-call' || typeof p.toolCallId !== 'string' || typeof p.toolName !== 'string' || p.providerExecuted === true) continue;
      calls.push({ step, toolCallId: p.toolCallId, toolName: p.toolName, input: state.inputOfCall.get(p.toolCallId) ?? parsedInput(p.input) });
    }
  }
  return calls;
}

function parsedInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input; // the model sent text that is no JSON: the schema check says so
  }
}
