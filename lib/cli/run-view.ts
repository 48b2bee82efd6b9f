/**
 * A run as text: the header `gnl show` prints above the timeline, the list's table, what the run waits
 * for, and the commands that act on it (run ids quoted for the shell).
 */
import {
  addToTotals,
  EMPTY_TOTALS,
  type PendingItem,
  type PlannedAction,
  type PlannedCall,
  type RecordedEvent,
  type RunPage,
  RunState,
  type RunSummary,
  runMemoryView,
  type RunTimer,
  runTimers,
} from '@/lib/durable';
import type { QueueEntry, RunNotification } from '@/lib/executor';
import { findHidden, hiddenWarning } from '@/lib/text';
import { clean, cut, dateTime, json, quoted, shellQuote, table } from './format';

const ACTIONABLE = new Set(['waiting-approval', 'waiting-tool-result', 'blocked']);

const KIND_LABEL: Record<PendingItem['kind'], string> = { approval: 'approval', 'side-effect': 'unknown outcome', 'tool-result': 'tool result' };

function waitingFor(run: RunSummary): string {
  const open = run.pending.filter((item) => !item.decision);
  if (!ACTIONABLE.has(run.status) || open.length === 0) return '';
  return open.map((item) => `${KIND_LABEL[item.kind]}: ${clean(item.toolName)}`).join(', ');
}

export function runListLines(page: RunPage, args: { status?: string; limit?: number }): string[] {
  if (page.runs.length === 0) return [args.status ? `No ${args.status} runs.` : 'No runs yet. Start one: gnl start <agent> --prompt "…"'];
  const lines = table(
    ['RUN ID', 'STATUS', 'AGENT', 'STEPS', 'UPDATED', 'WAITING FOR'],
    page.runs.map((run) => [clean(run.runId), run.status, clean(run.input.agent ?? '-'), String(run.stepCount), dateTime(run.updatedAt), waitingFor(run)]),
  );
  if (page.nextCursor) {
    const filters = [args.status ? `--status ${args.status}` : '', args.limit ? `--limit ${args.limit}` : ''].filter(Boolean).join(' ');
    lines.push('', `More: gnl list ${filters ? `${filters} ` : ''}--cursor ${page.nextCursor}`);
  }
  return lines;
}

function totals(events: readonly RecordedEvent[]): string {
  const sum = addToTotals(EMPTY_TOTALS, events).tokens;
  return `${sum.input} in, ${sum.output} out`;
}

export function runHeaderLines(run: RunSummary, queue: QueueEntry | undefined, events: readonly RecordedEvent[]): string[] {
  const { input } = run;
  const lines = [
    `Run       ${clean(run.runId)}`,
    `Status    ${run.status}`,
    // Erased (docs/erasure.md): its data reads as erased below; who erased it, when and why.
    ...(run.erased ? [`Erased    ${dateTime(run.erased.at)} by ${clean(run.erased.by)}: ${clean(run.erased.reason)} (its data can no longer be read)`] : []),
    ...(input.subject !== undefined ? [`Subject   ${clean(input.subject)}`] : []),
    `Agent     ${input.agent ? `${clean(input.agent)}${versionText(events, input.agentVersion)}` : '- (runDurable called directly)'}`,
    // A chat's turn: the conversation it belongs to (its other turns are runs of their own).
    ...(input.conversationId !== undefined ? [`Chat      turn of conversation ${clean(input.conversationId)}`] : []),
    ...memoryLines(run),
    `Model     ${clean(input.provider)}/${clean(input.modelId)}`,
    `Created   ${dateTime(run.createdAt)} · updated ${dateTime(run.updatedAt)}`,
    `Steps     ${run.stepCount} · tokens ${totals(events)} · ${run.lastSeq} events`,
  ];
  lines.push(...timerLines(new RunState(events)));
  if (queue) lines.push(`Executor  ${queueText(queue)}`);
  return [...lines, ...forkLines(run, events)];
}

/** The memory the run was given when it started (its record: every resume is given the same), each recalled item with its score. */
function memoryLines(run: RunSummary): string[] {
  const memory = run.erased ? undefined : runMemoryView(run.input);
  if (!memory) return [];
  const given = `${memory.messages} message${memory.messages === 1 ? '' : 's'} of thread ${clean(memory.thread)}`;
  return [
    `Memory    of ${clean(memory.resource)}: ${given}${memory.recalled.length > 0 ? `, ${memory.recalled.length} recalled:` : ', nothing recalled'}`,
    ...memory.recalled.map((item) => `            ${item.score.toFixed(2)}  ${item.kind}  ${item.text === undefined ? `item ${item.id}` : clean(item.text)}`),
  ];
}

/** The webhooks that announced the run's waits and failures (docs/notifications.md): one line each, as the outbox recorded it. */
export function notificationLines(rows: readonly RunNotification[]): string[] {
  return rows.map((row) => {
    const attempts = `${row.attempts} attempt${row.attempts === 1 ? '' : 's'}`;
    const when =
      row.delivery === 'delivered' && row.deliveredAt
        ? ` ${dateTime(row.deliveredAt)}`
        : row.delivery === 'pending'
          ? ` · next attempt ${dateTime(row.nextAttemptAt)}`
          : '';
    const error = row.lastError ? ` · ${cut(clean(row.lastError), 200)}` : '';
    return `Notified  #${row.seq} ${row.status}: ${row.delivery} (${attempts})${when}${error}`;
  });
}

/** Where a fork comes from, the forks made of this run (the journal's links both ways: docs/fork.md), and where an imported run came from. */
function forkLines(run: RunSummary, events: readonly RecordedEvent[]): string[] {
  const { forkOf } = run.input;
  const lines = forkOf
    ? [
        `Fork of   ${clean(forkOf.runId)} at step ${forkOf.atStep}, by ${clean(forkOf.by)}: ${quoted(forkOf.reason, 120)}${forkOf.instruction !== undefined ? ' (with an instruction)' : ''}`,
      ]
    : [];
  const state = new RunState(events);
  for (const fork of state.forks)
    lines.push(`Forked    as ${clean(fork.childRunId)} at step ${fork.atStep}, by ${clean(fork.by)}: ${quoted(fork.reason, 120)}`);
  const imported = state.imported;
  if (imported)
    lines.push(
      `Imported  by ${clean(imported.by)} at ${dateTime(imported.at)}, from an export of ${clean(imported.runId)} (${clean(imported.exportedAt)})${imported.redacted ? ': redacted, evidence only' : ''}`,
    );
  return lines;
}

/** The version the run runs on (its last migration's, else its start's) and, once migrated, from what and by whom. */
function versionText(events: readonly RecordedEvent[], started: string | undefined): string {
  const state = new RunState(events);
  const version = state.agentVersion ?? started;
  const last = state.migrations.at(-1);
  const migrated = last ? `, migrated from ${clean(last.fromVersion ?? '?')} by ${clean(last.by)} at ${dateTime(last.at)}` : '';
  return version ? ` (version ${clean(version)}${migrated})` : '';
}

const TIMER_TEXT: { [K in RunTimer['kind']]: (timer: Extract<RunTimer, { kind: K }>) => string } = {
  'approval-deadline': (t) => `approval of ${clean(t.toolName)} (${clean(t.toolCallId)}) expires`,
  retry: (t) => `attempt ${t.attempt} of ${t.attempts}`,
  resume: (t) => `resume scheduled by ${clean(t.by)}${t.reason ? `: ${cut(clean(t.reason), 200)}` : ''}`,
  workflow: (t) => (t.what === 'sleep' ? `sleep "${clean(t.name)}" ends` : `wait for event "${clean(t.name)}" times out`),
};

/** The run's automatic attempts (run-retry) and what is due when (runTimers), from the projection. */
export function timerLines(state: RunState): string[] {
  const lines: string[] = [];
  const last = state.retries[state.retries.length - 1];
  if (last && state.retryStreak > 0) {
    const next = last.retryAt ? `next at ${dateTime(new Date(last.retryAt))}` : 'no attempts left: waiting for a person (gnl resume starts them afresh)';
    lines.push(`Attempts  ${last.attempt} of ${last.attempts} failed · ${next} · last error ${cut(clean(`${last.error.name}: ${last.error.message}`), 200)}`);
  }
  for (const timer of runTimers(state)) {
    const text = (TIMER_TEXT[timer.kind] as (t: RunTimer) => string)(timer);
    lines.push(`Due       ${dateTime(new Date(timer.dueAt))} · ${text}`);
  }
  return lines;
}

export function queueText(entry: QueueEntry): string {
  const parts: string[] = [];
  if (entry.abandonedAt) parts.push(`abandoned by ${clean(entry.abandonedBy ?? '?')} at ${dateTime(entry.abandonedAt)}: ${clean(entry.abandonReason ?? '')}`);
  else if (entry.leaseOwner) parts.push(`executing on ${clean(entry.leaseOwner)} (lease until ${dateTime(entry.leaseExpiresAt ?? undefined)})`);
  else if (entry.runnable && entry.notBefore && entry.notBefore.getTime() > Date.now()) parts.push(`queued: not before ${dateTime(entry.notBefore)}`);
  else if (entry.runnable) parts.push('queued: an executor takes it up next');
  else parts.push('idle');
  parts.push(`${entry.claims} ${entry.claims === 1 ? 'claim' : 'claims'}`);
  if (entry.outcome) parts.push(`last invocation: ${clean(entry.outcome)}${entry.error ? ` (${cut(clean(entry.error), 200)})` : ''}`);
  if (entry.restartOf) parts.push(`restart of ${clean(entry.restartOf)}`);
  if (entry.restartedAs) parts.push(`restarted as ${clean(entry.restartedAs)}`);
  return parts.join(' · ');
}

function pendingLine(item: PendingItem, max: number | undefined): string {
  const call = `${clean(item.toolName)} (${clean(item.toolCallId)})`;
  const decided = item.decision ? ` · decided: ${item.decision.outcome} by ${clean(item.decision.by)}` : '';
  if (item.kind === 'approval') {
    const rule = item.rule
      ? ` · rule: ${ruleText(item.rule)}${item.votes?.length ? `; approved so far by ${item.votes.map((v) => clean(v.by)).join(', ')}` : ''}`
      : '';
    const changed = item.proposal ? ` · args as changed by ${clean(item.proposal.by)} ${json(item.proposal.input, max)} (asked:` : ' · args';
    return `approval of ${call} since ${dateTime(item.requestedAt)}${item.expiresAt ? `, expires ${dateTime(item.expiresAt)}` : ''}${decided}${rule}${changed} ${json(item.input, max)}${item.proposal ? ')' : ''}`;
  }
  if (item.kind === 'tool-result')
    return `the result of ${call} (a tool without execute) since ${dateTime(item.requestedAt)}${decided} · args ${json(item.input, max)}`;
  return `unknown outcome of ${call}, attempt ${item.attempt} started ${dateTime(item.startedAt)}, key ${clean(item.idempotencyKey)} (${clean(item.reason)})${decided} · args ${json(item.input, max)}`;
}

/** An approval rule in words: its role, its N, four eyes. */
function ruleText(rule: NonNullable<Extract<PendingItem, { kind: 'approval' }>['rule']>): string {
  const parts = [
    rule.role ? `role ${rule.role}` : undefined,
    (rule.approvals ?? 1) > 1 ? `${rule.approvals} approvals` : undefined,
    rule.fourEyes ? 'four eyes' : undefined,
  ];
  return parts.filter(Boolean).join(', ') || 'any decider';
}

/** The hidden characters of a value's JSON (as the Studio counts them: a control JSON escapes itself is not hidden there). */
function hiddenIn(value: unknown) {
  try {
    return findHidden(JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? String(v) : v)) ?? '');
  } catch {
    return findHidden('');
  }
}

/** What the run waits for, and the commands that decide it; what to do when nothing waits. */
export function nextStepLines(run: RunSummary, queue: QueueEntry | undefined, max: number | undefined): string[] {
  const id = shellQuote(run.runId);
  const lines: string[] = [];
  const open = run.pending.filter((item) => !item.decision);
  if (queue?.outcome === 'diverged' && !queue.abandonedAt) {
    // Checked first: whatever the run waits for, it cannot continue on the agent as it is now.
    return [
      'Its agent changed since it started, so it cannot resume as it is:',
      `  gnl abandon ${id} --by <you> --reason "…"    or    gnl restart ${id} --by <you>`,
    ];
  }
  if (ACTIONABLE.has(run.status) && run.pending.length > 0) {
    lines.push('Waiting for:');
    for (const item of run.pending) {
      lines.push(`  ${pendingLine(item, max)}`);
      // Before the commands that decide it: what the escapes above stand for (the Studio's inbox says the same).
      const warning = item.decision ? undefined : hiddenWarning(hiddenIn(item.input), { what: 'Its arguments', shown: 'shown as \\u escapes above' });
      if (warning) lines.push(`    ! ${warning}`);
    }
    for (const item of open) {
      const call = shellQuote(item.toolCallId);
      if (item.kind === 'approval') {
        const asChanged = item.proposal ? ' --as-changed' : '';
        lines.push(`  gnl approve ${id} ${call}${asChanged} --by <you>    or    gnl reject ${id} ${call} --by <you> --reason "…"`);
      } else if (item.kind === 'tool-result') {
        lines.push(`  gnl provide ${id} ${call} --output '<JSON>' --by <you>`);
      } else {
        lines.push(`  gnl resolve ${id} ${call} --done --output '<JSON>' --by <you>    or    gnl resolve ${id} ${call} --not-done --by <you>`);
      }
    }
    lines.push(open.length === 0 ? `All decided: gnl resume ${id} --by <you>` : `Then: gnl resume ${id} --by <you>`);
  } else if (run.status === 'failed' && !queue?.runnable) {
    lines.push(`Failed: gnl resume ${id} --by <you> tries the failed step again.`);
  } else if (run.status === 'waiting') {
    // A workflow holding no worker: for a time, an event or its children (its timeline says which).
    lines.push(
      `Waiting (a workflow): it wakes by itself when its sleep ends or its children settle. An event it waits for: gnl event send ${id} <name> --payload '<JSON>' --by <you>`,
      `Its children: gnl tree ${id}`,
    );
  }
  return lines;
}

const PLAN_LABEL: Record<PlannedAction, string> = {
  replays: 'replays its recorded result',
  executes: 'executes',
  'executes-again': 'executes again',
  'checked-first': 'is checked first',
  blocks: 'blocks the run',
  'not-run': 'does not run',
  waits: 'waits',
  'asks-policy': 'asks its approval policy first',
  'depends-on-declaration': 'depends on its declaration',
};

/** What the next resume does with each call of the last model step (the run projection's plan, planResume). */
export function planLines(plan: readonly PlannedCall[], max: number | undefined): string[] {
  if (plan.length === 0) return [];
  return [
    'A resume would:',
    ...plan.map((call) => {
      const key = call.idempotencyKey ? ` [key ${call.idempotencyKey}]` : '';
      return `  ${clean(call.toolName)} ${clean(call.toolCallId)} ${PLAN_LABEL[call.action]}: ${cut(clean(call.why), max)}${key}`;
    }),
  ];
}
