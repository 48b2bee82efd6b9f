/**
 * A workflow's family, read from the journal: the topmost run of the job's tree (following each run's
 * `parent` link up) and every child under it (each parent's workflow-wait records its children), with
 * their statuses. What `gnl tree` prints and the Studio's run page links. Children not started yet
 * (later in a fan-out) are listed as not started.
 */
import { RunState, type RunStatus } from '@/lib/durable';
import { resolveStorage, type StorageContext } from './context';

export interface RunTreeNode {
  runId: string;
  /** An agent's run or a workflow's, with its registered name. */
  kind: 'agent' | 'workflow';
  name: string;
  /** Undefined: named by the parent but not started (a fan-out's later child). */
  status: RunStatus | undefined;
  /** 0 for the root. */
  depth: number;
  parentRunId: string | undefined;
  /** The parent's step that started it. */
  step: string | undefined;
}

/** The deepest a tree is followed (a parent link can never loop, but a journal is data). */
const MAX_DEPTH = 32;
/** The most nodes read (a fan-out of thousands is listed up to here, then `truncated`). */
const MAX_NODES = 2_000;

/** `from: 'self'`: the tree under this run only (a run page's children), not from the top. */
export async function runTree(
  context: StorageContext,
  runId: string,
  options: { from?: 'top' | 'self'; maxDepth?: number } = {},
): Promise<{ rootRunId: string; nodes: RunTreeNode[]; truncated: boolean } | undefined> {
  const { journal } = resolveStorage(context);
  const start = await journal.getRun(await journal.runIdOf(runId));
  if (!start) return undefined;
  const maxDepth = Math.min(options.maxDepth ?? MAX_DEPTH, MAX_DEPTH);
  let root = start;
  for (let up = 0; options.from !== 'self' && up < MAX_DEPTH && root.input.parent; up++) {
    const parent = await journal.getRun(root.input.parent.runId);
    if (!parent) break;
    root = parent;
  }
  const nodes: RunTreeNode[] = [];
  const seen = new Set<string>();
  let truncated = false;
  const visit = async (id: string, meta: Omit<RunTreeNode, 'runId' | 'status'>): Promise<void> => {
    if (seen.has(id)) return;
    if (nodes.length >= MAX_NODES) {
      truncated = true;
      return;
    }
    seen.add(id);
    const summary = await journal.getRun(id);
    nodes.push({ runId: id, status: summary?.status, ...meta });
    if (!summary?.input.workflow || meta.depth >= maxDepth) return;
    const state = new RunState(await journal.events(id));
    for (const { name, wait } of state.workflowWaits.values()) {
      if (wait.kind !== 'children') continue;
      for (const child of wait.children) {
        await visit(child.runId, { kind: child.kind, name: child.name, depth: meta.depth + 1, parentRunId: id, step: name });
      }
    }
  };
  const rootKind = root.input.workflow ? 'workflow' : 'agent';
  await visit(root.runId, {
    kind: rootKind,
    name: root.input.workflow?.name ?? root.input.agent ?? '(direct run)',
    depth: 0,
    parentRunId: undefined,
    step: undefined,
  });
  return { rootRunId: root.runId, nodes, truncated };
}
