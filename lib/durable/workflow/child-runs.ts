/**
 * A workflow's child runs: how their ids are made (from the job, so a restart of the parent finds the
 * same children), how a parent reads a child's outcome from the journal, and the port through which a
 * parent starts one (the executor's, lib/executor/workflow-children.ts: the core starts no run of a
 * registered agent itself).
 */
import type { Journal } from '../journal/journal';
import { RunState } from '../projection/run-state';

/** What a workflow asks to run as a child: a registered agent with its input ({ prompt } or { messages }), or a registered workflow. */
export type ChildSpec = { agent: string; input: unknown; runId?: string } | { workflow: string; input: unknown; runId?: string };

/** A child as the parent's workflow-wait records it. */
export interface ChildRef {
  runId: string;
  kind: 'agent' | 'workflow';
  name: string;
}

/** How a child ended, as the parent records it (workflow-wait-end): its output, or why it did not complete. */
export type ChildOutcome =
  | { runId: string; status: 'completed'; output: unknown }
  | { runId: string; status: 'failed'; error: { name: string; message: string } }
  | { runId: string; status: 'canceled'; by: string; reason?: string }
  /** Not started: an earlier child failed and the fan-out's onFailure is 'throw'. */
  | { runId: string; status: 'skipped' };

/** Starts a child run (idempotent by its runId: the same child again is the run that exists). */
export interface ChildStarter {
  start(child: ChildRef & { input: unknown; parent: { runId: string; waitId: string } }): Promise<void>;
  /**
   * Whether whoever runs the child is still deciding what its failure means: its executor holds it, or
   * will claim it again, and may yet journal an automatic retry (its `run-retry` comes after its
   * `run-fail`). A failed child is not settled while this says so. Absent: a failure is final at once.
   */
  settling?(runId: string): Promise<boolean>;
}

export function childRef(spec: ChildSpec, runId: string): ChildRef {
  return 'workflow' in spec ? { runId, kind: 'workflow', name: spec.workflow } : { runId, kind: 'agent', name: spec.agent };
}

/**
 * Where the child stands: not started (undefined), still going ('open': running, waiting for people,
 * blocked, or failed with an automatic retry ahead or still to be decided: `children.settling`), or
 * settled. An agent's output is its answer's text, a workflow's its return value.
 */
export async function readChild(journal: Journal, runId: string, children?: Pick<ChildStarter, 'settling'>): Promise<ChildOutcome | 'open' | undefined> {
  const summary = await journal.getRun(runId);
  if (!summary) return undefined;
  if (summary.status !== 'completed' && summary.status !== 'failed' && summary.status !== 'canceled') return 'open';
  const state = new RunState(await journal.events(runId));
  if (state.status === 'completed') {
    return { runId, status: 'completed', output: state.input?.workflow ? state.completedOutput : (state.completedText ?? '') };
  }
  if (state.status === 'canceled')
    return { runId, status: 'canceled', by: state.canceled?.by ?? 'unknown', ...(state.canceled?.reason ? { reason: state.canceled.reason } : {}) };
  // Its executor journals the retry (if any) after the failure: until it has decided, the failure is not the child's last word.
  if (state.status === 'failed' && state.nextAttemptAt === undefined && !(await children?.settling?.(runId)))
    return { runId, status: 'failed', error: state.failure ?? { name: 'Error', message: 'failed' } };
  return 'open';
}
