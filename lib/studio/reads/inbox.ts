/**
 * The inbox: everything waiting for a person, across runs, oldest first. Each item carries the run's
 * goal (its prompt or messages), the last model steps before it, and for an uncertain side effect the
 * evidence: tool, arguments, key, attempt and when it started, which executor held the run and its last
 * heartbeat, and the output schema a "done" must match. A call to a tool without execute waits for its
 * result, with the output schema that result must match. Server-only.
 */
import 'server-only';
import { registry } from '@/agents';
import { type PendingItem, type RecordedEvent, RunState, type RunSummary, subAgentOf } from '@/lib/durable';
import { addToInvocations, NO_INVOCATIONS } from '@/lib/durable/projection';
import { storageFromEnv } from '@/lib/durable/storage';
import { queueEntry } from '@/lib/executor';
import { conversationIdOf } from './conversation-path';
import { readModelStep } from './model-step';
import { type OutsideRecord, outsideRecord } from './outside-record';
import { toolInputJsonSchema } from './tool-input';
import { toolOutputJsonSchema } from './tool-output';
import { jsonSafe, type WireRun } from './wire';

/** The model steps shown before each item. */
const LAST_STEPS = 3;
/** Runs read per status (the inbox is for the work at hand; a backlog beyond this says so). */
const MAX_RUNS = 500;

export interface InboxStep {
  seq: number;
  step: number;
  text: string;
  toolCalls: { toolName: string; input: unknown }[];
}

export interface InboxItem {
  run: Pick<WireRun, 'runId' | 'status' | 'createdAt' | 'updatedAt'> & {
    agent?: string;
    /** The conversation the run is one turn of (a chat's), whose page shows the thread. */
    conversationId?: string;
    goal: unknown;
  };
  item: PendingItem;
  /** When the question was asked (or the result requested), or the uncertain attempt started. */
  since: string;
  lastSteps: InboxStep[];
  /** A decided item whose run was asked to resume, not begun yet (the projection's resumeRequested): "resuming", not "waiting to resume". */
  resuming?: { by: string; at: string };
  /** For side effects: who held the run and when it last said it was alive. */
  executor?: {
    /** The executor holding the run's lease now, or null. */
    owner: string | null;
    /** The executor that claimed the run last (kept after its lease ended): the one that held it when it blocked. */
    lastOwner: string | null;
    claimedAt: string | null;
    heartbeatAt: string | null;
    /** How the last invocation ended (e.g. blocked). */
    outcome: string | null;
  };
  /** For side effects and tool results: the JSON Schema the output given must match (absent: any JSON). */
  outputSchema?: unknown;
  /** For side effects whose tool declares a lookup: what the outside system holds under the call's key. */
  outsideRecord?: OutsideRecord;
  /** For approvals: the JSON Schema of the tool's arguments, the form an approver edits them in (absent: one JSON field). */
  inputSchema?: unknown;
}

export interface Inbox {
  items: InboxItem[];
  /** True when more runs wait than the inbox reads at once. */
  truncated: boolean;
}

/** The statuses in which a run waits for a person. */
const WAITING = ['waiting-approval', 'waiting-tool-result', 'blocked'] as const;

async function waitingRuns(status: (typeof WAITING)[number]): Promise<{ runs: RunSummary[]; truncated: boolean }> {
  const journal = storageFromEnv().runs;
  const runs: RunSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await journal.listRuns({ status, limit: 200, ...(cursor ? { cursor } : {}) });
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor && runs.length < MAX_RUNS);
  return { runs, truncated: cursor !== undefined };
}

/** The run's last events (up to 60): its last model steps, and whether a resume was asked for since it stopped. */
async function recentOf(run: RunSummary): Promise<{ steps: InboxStep[]; resuming?: { by: string; at: string } }> {
  const events = await storageFromEnv().runs.events(run.runId, { afterSeq: Math.max(run.lastSeq - 60, 0) });
  const asked = addToInvocations(NO_INVOCATIONS, events).resumeRequested;
  return { steps: lastSteps(events), ...(asked ? { resuming: { by: asked.by, at: new Date(asked.at).toISOString() } } : {}) };
}

function lastSteps(events: RecordedEvent[]): InboxStep[] {
  return new RunState(events)
    .recordedSteps()
    .slice(-LAST_STEPS)
    .map(({ step, seq, result }) => {
      const view = readModelStep(result);
      return { seq, step, text: view.text, toolCalls: view.toolCalls.map((call) => ({ toolName: call.toolName, input: jsonSafe(call.input) })) };
    });
}

async function itemsOf(run: RunSummary): Promise<InboxItem[]> {
  const { steps, resuming } = await recentOf(run);
  const blocked = run.pending.some((p) => p.kind === 'side-effect');
  const entry = blocked ? await queueEntry(run.runId) : undefined;
  const base = {
    runId: run.runId,
    status: run.status,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    ...(run.input.agent ? { agent: run.input.agent } : {}),
    ...(conversationIdOf(run.input) !== undefined ? { conversationId: conversationIdOf(run.input) } : {}),
    goal: jsonSafe(run.input.prompt ?? run.input.messages ?? null),
  };
  // A sub-agent call is answered by its child run (lib/executor/sub-agents.ts), not by a person: the child's own approvals are in the inbox.
  const forPeople = run.pending.filter((item) => item.kind !== 'tool-result' || !answeredBySubAgent(run.input.agent, item.toolName));
  return Promise.all(
    forPeople.map(async (item) => {
      const outputSchema = item.kind === 'approval' ? undefined : await toolOutputJsonSchema(run.input.agent, item.toolName);
      const inputSchema = item.kind === 'approval' ? await toolInputJsonSchema(run.input.agent, item.toolName) : undefined;
      const record = item.kind === 'side-effect' && !item.decision ? await outsideRecord({ runId: run.runId, agentName: run.input.agent, item }) : undefined;
      return {
        run: base,
        item: jsonSafe(item),
        since: item.kind === 'side-effect' ? item.startedAt : item.requestedAt,
        lastSteps: steps,
        ...(resuming && item.decision ? { resuming } : {}),
        ...(entry
          ? {
              executor: {
                owner: entry.leaseOwner,
                lastOwner: entry.lastLeaseOwner,
                claimedAt: entry.claimedAt?.toISOString() ?? null,
                heartbeatAt: entry.heartbeatAt?.toISOString() ?? null,
                outcome: entry.outcome,
              },
            }
          : {}),
        ...(outputSchema ? { outputSchema: jsonSafe(outputSchema) } : {}),
        ...(inputSchema ? { inputSchema: jsonSafe(inputSchema) } : {}),
        ...(record ? { outsideRecord: record } : {}),
      };
    }),
  );
}

function answeredBySubAgent(agentName: string | undefined, toolName: string): boolean {
  if (!agentName || !registry.hasAgent(agentName)) return false;
  return subAgentOf((registry.getAgent(agentName).tools as Record<string, unknown>)[toolName]) !== undefined;
}

export async function loadInbox(): Promise<Inbox> {
  const lists = await Promise.all(WAITING.map(waitingRuns));
  const items = (await Promise.all(lists.flatMap((list) => list.runs).map(itemsOf))).flat();
  items.sort((a, b) => a.since.localeCompare(b.since) || a.run.runId.localeCompare(b.run.runId));
  return { items, truncated: lists.some((list) => list.truncated) };
}

/** One run's part of the inbox (its run page offers the same choices): empty when it waits for no one. */
export async function loadRunInbox(runId: string): Promise<InboxItem[]> {
  const run = await storageFromEnv().runs.getRun(runId);
  return run && run.pending.length > 0 ? itemsOf(run) : [];
}
