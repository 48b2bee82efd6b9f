/**
 * Sub-agents in the executor layer (lib/durable/tools/sub-agent.ts): when an agent run waits for the
 * result of a subAgentTool call, its child run is started (idempotent by its id, made from the parent's
 * run and the call), with the parent link; when the child settles, its outcome is given to the parent
 * as the call's result through the journal (provideToolResult, by "run <child>") and the parent is
 * resumed. A child already settled (the parent was resumed meanwhile, or crashed before answering) is
 * answered at once. The child's steps, approvals and side effects are its own: it is a run like any.
 */
import { DecisionConflictError, type RunSummary, readChild, type SubAgentOutput, subAgentOf, subAgentRunId } from '@/lib/durable';
import type { Resolved, ResolvedStorage } from './context';
import { startAndEnqueue } from './start-run';

/** The sub-agent calls a run waits for, with the agent each runs. */
function subAgentCalls(resolved: Pick<Resolved, 'registry'>, run: RunSummary): { toolCallId: string; agent: string; task: string }[] {
  const agentName = run.input.agent;
  if (run.input.workflow || !agentName || !resolved.registry.hasAgent(agentName)) return [];
  const tools = resolved.registry.getAgent(agentName).tools as Record<string, unknown>;
  const calls: { toolCallId: string; agent: string; task: string }[] = [];
  for (const item of run.pending) {
    if (item.kind !== 'tool-result' || item.decision) continue;
    const declared = subAgentOf(tools[item.toolName]);
    if (!declared) continue;
    const task = (item.input as { task?: unknown } | undefined)?.task;
    calls.push({ toolCallId: item.toolCallId, agent: declared.agent, task: typeof task === 'string' ? task : JSON.stringify(item.input ?? null) });
  }
  return calls;
}

/** Starts the child runs a settled agent run waits for (each once), and answers those that settled already. Returns the children's ids. */
export async function startSubAgents(resolved: Resolved, runId: string): Promise<string[]> {
  const run = await resolved.journal.getRun(runId);
  if (!run || run.status === 'completed' || run.status === 'canceled') return [];
  const started: string[] = [];
  for (const call of subAgentCalls(resolved, run)) {
    const childId = subAgentRunId(run.runId, call.toolCallId);
    if (!(await resolved.journal.getRun(childId))) {
      await startAndEnqueue(
        { ...resolved, agent: call.agent, runId: childId, input: { prompt: call.task } },
        { parent: { runId: run.runId, waitId: call.toolCallId } },
      );
    }
    started.push(childId);
    await answerParent(resolved, childId);
  }
  return started;
}

/**
 * A settled child of an agent run's sub-agent call: its outcome recorded as the call's result and the
 * parent resumed. False when there is nothing to answer (the child is open, the parent no longer waits for
 * that call, or someone answered it first).
 */
export async function answerParent(resolved: ResolvedStorage, childRunId: string): Promise<boolean> {
  const child = await resolved.journal.getRun(childRunId);
  const link = child?.input.parent;
  if (!child || !link) return false;
  const parent = await resolved.journal.getRun(link.runId);
  if (!parent || parent.input.workflow) return false;
  const waiting = parent.pending.find((item) => item.kind === 'tool-result' && item.toolCallId === link.waitId && !item.decision);
  if (!waiting) return false;
  // A failure its executor may still retry is not the child's answer yet (child-runs.ts).
  const outcome = await readChild(resolved.journal, childRunId, { settling: (runId) => resolved.queue.settling(runId) });
  if (outcome === undefined || outcome === 'open') return false;
  const output: SubAgentOutput =
    outcome.status === 'completed'
      ? { runId: childRunId, status: 'completed', answer: typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output) }
      : outcome.status === 'failed'
        ? { runId: childRunId, status: 'failed', error: `${outcome.error.name}: ${outcome.error.message}` }
        : {
            runId: childRunId,
            status: 'canceled',
            error: outcome.status === 'canceled' ? `canceled by ${outcome.by}${outcome.reason ? `: ${outcome.reason}` : ''}` : 'not started',
          };
  const by = `run ${childRunId}`;
  try {
    await resolved.journal.provideToolResult({ runId: link.runId, toolCallId: link.waitId, output, by, reason: 'the sub-agent’s run settled' });
  } catch (error) {
    // Answered first (a person, or another executor that saw the child settle): that answer stands.
    if (DecisionConflictError.isInstance(error)) return false;
    throw error;
  }
  // As resumeRun does (run-control.ts), recorded with who: the parent was run by an executor, so it has its queue row.
  await resolved.journal.requestResume({ runId: link.runId, by, reason: 'the sub-agent’s run settled' });
  await resolved.queue.wake(link.runId);
  return true;
}

/** The open child runs of an agent run's sub-agent calls (what its cancel reaches). */
export async function openSubAgentsOf(resolved: Pick<ResolvedStorage, 'journal'>, run: RunSummary): Promise<string[]> {
  const open: string[] = [];
  for (const item of run.pending) {
    if (item.kind !== 'tool-result') continue;
    const childId = subAgentRunId(run.runId, item.toolCallId);
    const child = await resolved.journal.getRun(childId);
    if (child?.input.parent?.runId === run.runId && (await readChild(resolved.journal, childId)) === 'open') open.push(childId);
  }
  return open;
}
