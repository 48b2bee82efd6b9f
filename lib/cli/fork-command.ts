/**
 * `gnl fork`: a new run whose history is the run's up to a model step, asking the model again from
 * there (docs/fork.md). One call of the executor layer (forkRun, or previewFork with --dry-run), the
 * same the Studio's "Fork from here" makes. The preview lists every side effect that could act again
 * after the fork point and the key it would go out under.
 */
import type { Command } from 'commander';
import type { ForkEdit } from '@/lib/durable';
import { type ForkPreview, forkRun, previewFork } from '@/lib/executor';
import { CliError, EXIT } from './failures';
import { clean, json, shellQuote } from './format';
import { jsonOption, parseJsonOption, waitOptions, wholeNumber } from './options';
import { maybeWait, type WaitFlags } from './run-commands';
import type { CliSession } from './session';

interface ForkFlags extends WaitFlags {
  atStep: number;
  by?: string;
  reason?: string;
  instruction?: string;
  resultOf?: string;
  output?: string;
  workflowVersion?: string;
  newRunId?: string;
  dryRun?: boolean;
}

export function registerForkCommand(program: Command, session: CliSession): void {
  const fork = program
    .command('fork')
    .description(
      "fork a run at a model step (a workflow's: at one of its steps): a new run that keeps its history up to that step (replayed, never asked again) and asks the model again there (runs the workflow's code again from there); side effects it repeats go out under the same idempotency keys",
    )
    .argument('<runId>', 'the run to fork')
    .requiredOption(
      '--at-step <n>',
      "the model step to ask again, counted from 1 as gnl show and the Studio number them (a workflow's: its step N is wf-<N-1> in gnl show)",
      wholeNumber(1, 100_000),
    )
    .option('--by <who>', "who forks (recorded: an operator's login or a service name); not needed with --dry-run")
    .option('--reason <text>', 'why (recorded); not needed with --dry-run')
    .option('--instruction <text>', 'a message the model reads at the fork point, after the kept history')
    .option('--result-of <toolCallId>', 'replace the recorded output of this call of the step before the fork point (with --output)')
    .option('--output <json>', 'with --result-of: the output the model reads instead, as JSON')
    .option('--workflow-version <version>', "a workflow's fork: the registered version of the workflow it runs (default: the run's)")
    .option('--new-run-id <id>', "the fork's run id (default <agent>:fork-<uuid>); give one to make a repeated fork idempotent")
    .option('--dry-run', 'print what the fork would keep and which side effects could act again; write nothing');
  waitOptions(fork);
  jsonOption(fork).action(async (runId: string, opts: ForkFlags) => {
    const edit = editOf(opts);
    const context = { storage: session.storage(), registry: session.registry, runId, atStep: opts.atStep, ...(edit ? { edit } : {}) };
    if (opts.dryRun) {
      const preview = await previewFork(context);
      session.print({ text: previewLines(preview, session.maxWidth), data: { preview } }, opts.json);
      return;
    }
    if (!opts.by || !opts.reason) throw new CliError('say who forks and why: --by <who> --reason "…" (or --dry-run to look first).', EXIT.usage);
    const forked = await forkRun({ ...context, by: opts.by, reason: opts.reason, ...(opts.newRunId ? { newRunId: opts.newRunId } : {}) });
    const intro = forked.created
      ? [
          `Forked run ${clean(runId)} at step ${opts.atStep} as ${clean(forked.runId)} (${forked.preview.workflow ? 'workflow' : 'agent'} ${clean(forked.agent)}).`,
          ...previewLines(forked.preview, session.maxWidth),
        ]
      : [`Run ${clean(forked.runId)} is this fork already (${forked.run.status}); nothing new was written.`];
    const result = await maybeWait(session, {
      runId: forked.runId,
      afterSeq: forked.created ? 0 : forked.run.lastSeq,
      flags: opts,
      intro,
      data: { runId: forked.runId, forkOf: runId, atStep: opts.atStep, created: forked.created, run: forked.run, preview: forked.preview },
    });
    session.print(result, opts.json);
  });
}

function editOf(opts: ForkFlags): ForkEdit | undefined {
  const edits = [opts.instruction, opts.resultOf, opts.workflowVersion].filter((edit) => edit !== undefined).length;
  if (edits > 1) throw new CliError('give one of --instruction, --result-of and --workflow-version: a fork makes one edit.', EXIT.usage);
  if (opts.workflowVersion !== undefined) return { version: opts.workflowVersion };
  if (opts.instruction !== undefined) return { instruction: opts.instruction };
  if (opts.resultOf === undefined) {
    if (opts.output !== undefined) throw new CliError('--output goes with --result-of <toolCallId>.', EXIT.usage);
    return undefined;
  }
  if (opts.output === undefined) throw new CliError('--result-of needs --output <json>: the output the model reads instead.', EXIT.usage);
  return { toolResult: { toolCallId: opts.resultOf, output: parseJsonOption('--output', opts.output) } };
}

/** The preview as lines: what is kept, what could act again and under which key, how the agent's side effects are keyed. */
export function previewLines(preview: ForkPreview, max: number | undefined): string[] {
  const flow = preview.workflow;
  const kept = preview.sharedSteps === 0 ? `keeps no ${flow ? '' : 'model '}step` : `keeps steps 1–${preview.sharedSteps}`;
  const lines = flow
    ? [
        `Fork of ${clean(preview.runId)} at step ${preview.atStep}: ${kept} (${preview.copiedEvents} events copied, replayed without running a step again) and runs workflow ${clean(flow.name)}${flow.version ? ` version ${clean(flow.version)}` : ''} again from step ${preview.atStep}; its child runs from there are its own.`,
      ]
    : [
        `Fork of ${clean(preview.runId)} at step ${preview.atStep}: ${kept} (${preview.copiedEvents} events copied, replayed without calling the model or a tool) and asks the model again at step ${preview.atStep}.`,
      ];
  if (preview.repeatable.length === 0) lines.push('The parent performed no side effect after the fork point.');
  else {
    lines.push(
      flow
        ? 'Side effects the parent performed from the fork point on (the same step with the same arguments sends the same key, and is answered from its record):'
        : 'Side effects the parent performed after the fork point (a call with the same tool and arguments sends the same key):',
    );
    for (const effect of preview.repeatable) {
      const where = effect.step !== undefined ? `step ${effect.step} ` : 'inherited ';
      lines.push(`  ${where}${clean(effect.toolName)} ${json(effect.input, max)} · key ${effect.idempotencyKey} · ${effect.outcome}`);
    }
  }
  if (preview.sideEffectTools.length > 0) {
    lines.push("The agent's side-effecting tools, as the fork keys them:");
    for (const tool of preview.sideEffectTools) {
      const scope =
        tool.keyScope === 'root-args'
          ? `'args': from the root run ${shellQuote(preview.rootRunId)}, the tool and the arguments`
          : "'call': a repeat of one above takes its key; any other call gets a new key";
      lines.push(`  ${clean(tool.toolName)}${tool.needsApproval ? ' (needs approval)' : ''}: ${scope}`);
    }
  }
  return lines;
}
