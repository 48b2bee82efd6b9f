/**
 * Commands that start runs and move them: start, resume, cancel, abandon, restart. Each is one call of
 * the executor layer (lib/executor), the same functions the Studio's server actions call.
 */
import { randomUUID } from 'node:crypto';
import { type Command, Option } from 'commander';
import { CRASH_POINTS, type CrashPoint, CrashPointStore } from '@/lib/demo';
import type { RunSummary } from '@/lib/durable';
import { abandonRun, cancelRun, previewRestart, type QueueEntry, type RestartPreview, restartRun, resumeRun, scheduleResume, startRun } from '@/lib/executor';
import { CliError, EXIT } from './failures';
import { clean, shellQuote } from './format';
import { byOption, instant, jsonOption, waitOptions } from './options';
import { nextStepLines, queueText } from './run-view';
import type { CliSession, CommandResult } from './session';
import { waitUntilSettled } from './wait';

export interface WaitFlags {
  wait?: boolean;
  timeout?: number;
  json?: boolean;
}

/** Where a queued run executes, for people who did not ask to --wait. */
function whereItRuns(session: CliSession, runId: string): string {
  const id = shellQuote(runId);
  return !session.storage().capabilities.multiProcess
    ? `Queued. On the embedded journal it executes when the Studio starts (npm run studio), or in this terminal: gnl resume ${id} --wait --by <you>`
    : `Queued: a worker (npm run worker) or the Studio executes it. Follow it: gnl show ${id}`;
}

function settledLines(run: RunSummary, queue: QueueEntry | undefined, session: CliSession): string[] {
  const lines = [
    `Run ${clean(run.runId)} is ${run.status}.${queue?.outcome && queue.outcome !== run.status ? ` Last invocation: ${clean(queue.outcome)}.` : ''}`,
  ];
  // Why the last invocation stopped, when it was not simply for people or the end (diverged, failed, blocked).
  if (queue?.error && queue.outcome !== 'waiting-approval' && queue.outcome !== 'completed') lines.push(`  ${clean(queue.error)}`);
  return [...lines, ...nextStepLines(run, queue, session.maxWidth)];
}

/** After a start, resume or restart: follow the run until it settles (--wait) or say where it will run. */
export async function maybeWait(
  session: CliSession,
  args: { runId: string; afterSeq: number; flags: WaitFlags; intro: string[]; data: Record<string, unknown> },
): Promise<CommandResult> {
  const { runId, afterSeq, flags, intro, data } = args;
  if (!flags.wait) return { text: [...intro, whereItRuns(session, runId)], data };
  if (!flags.json) session.line(...intro, `Following ${clean(runId)} until it settles…`);
  const settled = await waitUntilSettled(session, { runId, afterSeq, follow: !flags.json, ...(flags.timeout ? { timeoutMs: flags.timeout } : {}) });
  // Settled, but refused: it cannot go on on the agent as it is now (exit 4, as docs/cli.md lists it).
  if (settled.queue?.outcome === 'diverged' && !settled.queue.abandonedAt) session.exitCode = EXIT.conflict;
  return {
    text: ['', ...settledLines(settled.run, settled.queue, session)],
    data: { ...data, run: settled.run, queue: settled.queue ?? null, executedHere: settled.executedHere },
  };
}

export function registerRunCommands(program: Command, session: CliSession): void {
  const start = program
    .command('start')
    .description('start a run of an agent: recorded in the journal and queued for an executor')
    .argument('<agent>', 'the agent, by its registered name (gnl agents lists them)')
    .requiredOption('--prompt <text>', 'what the run is asked')
    .option('--run-id <id>', 'names the job (default <agent>:<uuid>); starting the same id with the same prompt returns the existing run')
    .option('--subject <id>', 'whom the run is about (a customer id): erasure by subject, and whose memory an agent with memory is given')
    .option('--conversation <id>', 'the conversation the run is a turn of: with --subject, the memory thread it reads and appends to')
    .option('--by <who>', 'who starts it (recorded; a tool approved by four eyes is not approved by them)')
    .addOption(new Option('--crash-at <point>', 'demo: the process executing the run SIGKILLs itself at this point, once').choices(CRASH_POINTS));
  waitOptions(start);
  jsonOption(start).action(
    async (agent: string, opts: WaitFlags & { prompt: string; runId?: string; subject?: string; conversation?: string; by?: string; crashAt?: CrashPoint }) => {
      // The demo's crash point is recorded before the run is queued (a worker may claim it at once), under
      // the run id it will have; the executing process arms it (lib/demo crash-point-store.ts).
      const runId = opts.runId ?? (opts.crashAt ? `${session.registry.getAgent(agent).name}:${randomUUID()}` : undefined);
      if (opts.crashAt && runId) await new CrashPointStore(session.storage()).arm(runId, opts.crashAt);
      const started = await startRun({
        storage: session.storage(),
        registry: session.registry,
        agent,
        input: {
          prompt: opts.prompt,
          ...(opts.subject !== undefined ? { subject: opts.subject } : {}),
          ...(opts.conversation !== undefined ? { conversationId: opts.conversation } : {}),
        },
        ...(runId !== undefined ? { runId } : {}),
        ...(opts.by !== undefined ? { by: opts.by } : {}),
      });
      const intro = started.created
        ? [`Started run ${clean(started.runId)} (agent ${clean(started.agent)}).`]
        : [`Run ${clean(started.runId)} exists already with this input (${started.run.status}); nothing new was started.`];
      const result = await maybeWait(session, {
        runId: started.runId,
        afterSeq: started.created ? 0 : started.run.lastSeq,
        flags: opts,
        intro,
        data: { runId: started.runId, agent: started.agent, created: started.created, run: started.run },
      });
      session.print(result, opts.json);
    },
  );

  const resume = byOption(
    program
      .command('resume')
      .description('make a run runnable again (after approvals, rejections or resolutions, or a failure): an executor continues it')
      .argument('<runId>', 'the run'),
    'resumes it',
  )
    .option('--reason <text>', 'why (recorded)')
    .option('--at <time>', 'not now: schedule the next invocation at this instant (ISO 8601 with a zone, e.g. 2026-12-02T09:00:00Z); journaled', instant);
  waitOptions(resume);
  jsonOption(resume).action(async (runId: string, opts: WaitFlags & { by: string; reason?: string; at?: Date }) => {
    const because = opts.reason !== undefined ? { reason: opts.reason } : {};
    if (opts.at) {
      if (opts.wait)
        throw new CliError('--at schedules the run for later: it cannot be followed with --wait (gnl show <runId> says when it is due).', EXIT.usage);
      const scheduled = await scheduleResume(runId, { storage: session.storage(), by: opts.by, at: opts.at, ...because });
      const due = scheduled.queue?.notBefore;
      const text = [
        `Resume of run ${clean(runId)} scheduled for ${opts.at.toISOString()} by ${clean(opts.by)}${opts.reason ? `: ${clean(opts.reason)}` : ''} (it is ${scheduled.run.status}).`,
        ...(due && due.getTime() < opts.at.getTime() - 1000 ? [`An earlier timer of the run comes first: it is next invoked at ${due.toISOString()}.`] : []),
        whereItRuns(session, runId),
      ];
      session.print({ text, data: { runId, resumeAt: opts.at.toISOString(), run: scheduled.run, queue: scheduled.queue ?? null } }, opts.json);
      return;
    }
    const resumed = await resumeRun(runId, { storage: session.storage(), by: opts.by, ...because });
    const who = `Resume requested by ${clean(opts.by)}${opts.reason ? `: ${clean(opts.reason)}` : ''}.`;
    const result = await maybeWait(session, {
      runId,
      afterSeq: resumed.run.lastSeq,
      flags: opts,
      intro: [`Run ${clean(runId)} is runnable again (it was ${resumed.run.status}). ${who}`],
      data: { runId, run: resumed.run, queue: resumed.queue ?? null },
    });
    session.print(result, opts.json);
  });

  const cancel = byOption(
    program.command('cancel').description('cancel a run: it stops at its next step boundary and never executes another tool').argument('<runId>', 'the run'),
    'cancels',
  );
  jsonOption(cancel.option('--reason <text>', 'why (recorded)')).action(async (runId: string, opts: { by: string; reason?: string; json?: boolean }) => {
    const canceled = await cancelRun(runId, { storage: session.storage(), by: opts.by, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) });
    session.print(
      {
        text: [
          `Canceled run ${clean(runId)} (by ${clean(opts.by)}${opts.reason ? `: ${clean(opts.reason)}` : ''}).`,
          'If it is executing now, it stops at its next step boundary; it executes no other tool.',
        ],
        data: { runId, run: canceled.run, queue: canceled.queue ?? null },
      },
      opts.json,
    );
  });

  const abandon = byOption(
    program
      .command('abandon')
      .description('give a run up for good, e.g. one whose agent changed since it started (RunDivergedError): canceled in the journal, never invoked again')
      .argument('<runId>', 'the run'),
    'gives it up',
  ).requiredOption('--reason <text>', 'why (recorded)');
  jsonOption(abandon).action(async (runId: string, opts: { by: string; reason: string; json?: boolean }) => {
    const abandoned = await abandonRun(runId, { storage: session.storage(), by: opts.by, reason: opts.reason });
    session.print(
      {
        text: [
          `Abandoned run ${clean(runId)} (by ${clean(opts.by)}: ${clean(opts.reason)}).`,
          ...(abandoned.queue ? [`Executor  ${queueText(abandoned.queue)}`] : []),
          `Its input can start again as a new run of the agent as it is now: gnl restart ${shellQuote(runId)} --by <you>`,
        ],
        data: { runId, run: abandoned.run, queue: abandoned.queue ?? null },
      },
      opts.json,
    );
  });

  const restart = byOption(
    program
      .command('restart')
      .description('start a run\'s input again as a new run of its agent as it is now; the old run is abandoned ("restarted as …")')
      .argument('<runId>', 'the old run')
      .option('--run-id <id>', "the new run's id (default <agent>:<uuid>); give one to make a repeated restart idempotent")
      .option('--preview', 'only say what the new run does with the old run’s side effects; change nothing')
      .option('--new-attempt', 'run the old run’s side effects again under new keys (recorded with --by); default: a repeat answers from the old record'),
    'restarts it',
  );
  waitOptions(restart);
  jsonOption(restart).action(async (runId: string, opts: WaitFlags & { by: string; runId?: string; preview?: boolean; newAttempt?: boolean }) => {
    const context = { storage: session.storage(), registry: session.registry };
    const preview = await previewRestart(runId, { ...context, newAttempt: opts.newAttempt === true });
    const effects = restartEffectLines(preview);
    if (opts.preview) {
      session.print({ text: [`Restarting run ${clean(runId)} (agent ${clean(preview.agent)}) would:`, ...effects], data: { preview } }, opts.json);
      return;
    }
    const restarted = await restartRun(runId, {
      ...context,
      by: opts.by,
      ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
      ...(opts.newAttempt ? { newAttempt: true } : {}),
    });
    const result = await maybeWait(session, {
      runId: restarted.runId,
      afterSeq: restarted.created ? 0 : restarted.run.lastSeq,
      flags: opts,
      intro: [`Restarted run ${clean(runId)} as ${clean(restarted.runId)} (agent ${clean(restarted.agent)}); the old run is abandoned.`, ...effects],
      data: { runId: restarted.runId, restartOf: runId, agent: restarted.agent, created: restarted.created, run: restarted.run, preview },
    });
    session.print(result, opts.json);
  });
}

/** One line per side effect of the old run: what the new run does if it repeats it. */
function restartEffectLines(preview: RestartPreview): string[] {
  if (preview.sideEffects.length === 0) return ['  The old run started no side effect: nothing can act twice.'];
  const what = {
    answered: 'a repeat answers from the old record; it does not execute again',
    stops: 'its outcome is unknown: a repeat stops the new run until it is marked done or not done in the old run',
    'runs-again': preview.newAttempt ? 'MAY RUN AGAIN under a new key (--new-attempt)' : 'known not performed: a repeat runs it',
  } as const;
  return preview.sideEffects.map(
    (effect) => `  ${clean(effect.toolName)} ${clean(JSON.stringify(effect.input))} (key ${effect.idempotencyKey}): ${what[effect.onRepeat]}`,
  );
}
