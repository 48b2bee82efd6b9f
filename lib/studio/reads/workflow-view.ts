/**
 * What a run page shows of a workflow (docs/workflows.md): what the run waits for now (a sleep, an event
 * with the form built from the payload schema the workflow declares, its children), the run that started
 * it, and its direct children with their statuses. Undefined for an agent run that is nobody's child.
 * Server-only: it reads the journal and the registry.
 */
import 'server-only';
import { registry } from '@/agents';
import { jsonSchemaOf } from '@/lib/agents';
import { RunState, type RunStatus, type WaitingFor, waitingFor } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { type RunTreeNode, runTree } from '@/lib/executor';

export interface WorkflowView {
  /** The workflow's registered name; undefined for an agent's child run. */
  workflow: string | undefined;
  waits: WaitingFor[];
  /** The payload schema (JSON Schema) of each event an open wait is for, when this server registers the workflow. */
  eventSchemas: Record<string, unknown>;
  parent: { runId: string; status: RunStatus | undefined } | undefined;
  children: RunTreeNode[];
  /** More children than listed. */
  truncated: boolean;
}

export async function loadWorkflowView(runId: string): Promise<WorkflowView | undefined> {
  const storage = storageFromEnv();
  const run = await storage.runs.getRun(runId);
  if (!run || (!run.input.workflow && !run.input.parent)) return undefined;
  const state = new RunState(await storage.runs.events(runId));
  const waits = run.status === 'waiting' ? waitingFor(state) : [];
  const name = run.input.workflow?.name;
  const declared = name && registry.hasWorkflow(name) ? registry.getWorkflow(name, run.input.workflow?.version).events : {};
  const eventSchemas: Record<string, unknown> = {};
  for (const wait of waits) {
    const schema = wait.kind === 'event' ? declared[wait.event] : undefined;
    if (wait.kind === 'event' && schema) eventSchemas[wait.event] = jsonSchemaOf(schema);
  }
  const tree = await runTree({ storage }, runId, { from: 'self', maxDepth: 1 });
  const parentId = run.input.parent?.runId;
  const parentRun = parentId ? await storage.runs.getRun(parentId) : undefined;
  return {
    workflow: name,
    waits,
    eventSchemas,
    parent: parentId ? { runId: parentId, status: parentRun?.status } : undefined,
    children: tree?.nodes.filter((node) => node.parentRunId === runId) ?? [],
    truncated: tree?.truncated ?? false,
  };
}
