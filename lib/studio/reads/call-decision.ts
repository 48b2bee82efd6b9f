/**
 * What the journal says about one call's decision, for a person whose decision got no answer (the
 * server died right after recording it, the network dropped): recorded or not, by whom and when, and
 * whether the run still waits for it. From the run projection (RunState's latest decision per call and
 * what the run waits for), never from the failed request. Server-only.
 */
import 'server-only';
import { type Decision, type LiveJournal, RunState, type RunStatus } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { jsonSafe } from './wire';

export interface CallDecision {
  runId: string;
  toolCallId: string;
  status: RunStatus;
  /** The call's latest decision (a person's or a policy's), if the journal has one. */
  decision?: Decision;
  /** The run waits for a decision on this call now: nobody has decided it. */
  undecided: boolean;
  /**
   * Under an approval rule asking for more than one approval: the approvals counted so far (who, when) and
   * how many it needs. A lost approval that was counted is here, not in `decision` (the call is decided
   * once enough are counted).
   */
  approvals?: { votes: { by: string; at: string }[]; needed: number };
}

/** Undefined when the journal has no such run. */
export function loadCallDecision(runId: string, toolCallId: string): Promise<CallDecision | undefined> {
  return callDecision({ journal: storageFromEnv().runs, runId, toolCallId });
}

/** loadCallDecision on a journal given (`journal`: the Studio's own, from storageFromEnv, in loadCallDecision). */
export async function callDecision(args: {
  journal: Pick<LiveJournal, 'getRun' | 'events'>;
  runId: string;
  toolCallId: string;
}): Promise<CallDecision | undefined> {
  const { journal, runId, toolCallId } = args;
  const run = await journal.getRun(runId);
  if (!run) return undefined;
  const state = new RunState(await journal.events(runId));
  const decision = state.decisionOf(toolCallId);
  const waiting = state.pending.find((item) => item.toolCallId === toolCallId && !item.decision);
  const undecided = waiting !== undefined;
  const ruled = waiting?.kind === 'approval' ? waiting : undefined;
  const votes = ruled?.votes ?? [];
  const approvals = ruled?.rule && votes.length > 0 ? { votes: votes.map(({ by, at }) => ({ by, at })), needed: ruled.rule.approvals ?? 1 } : undefined;
  return jsonSafe({ runId, toolCallId, status: run.status, ...(decision ? { decision } : {}), undecided, ...(approvals ? { approvals } : {}) });
}
