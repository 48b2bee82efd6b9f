/**
 * Operator decisions: approve, reject, resolve, provide. Each is one call of the journal's operator API
 * (journal.approve / reject / resolveSideEffect / provideToolResult), the path the Studio takes too; a second decision on
 * the same call is the journal's DecisionConflictError naming who decided first (exit 4).
 */
import { type Command, Option } from 'commander';
import { toolInputSchema, toolOutputSchema } from '@/lib/agents';
import { findOperator } from '@/lib/accounts';
import type { Decision } from '@/lib/durable';
import { assertApproverRole } from '@/lib/executor';
import { CliError, EXIT } from './failures';
import { clean, json, shellQuote } from './format';
import { byOption, jsonOption, parseJsonOption } from './options';
import type { CliSession } from './session';

interface DecisionFlags {
  by: string;
  reason?: string;
  json?: boolean;
}

export function registerDecisionCommands(program: Command, session: CliSession): void {
  for (const [name, verb, description] of [
    ['approve', 'Approved', 'approve a tool call waiting for approval: the next resume executes it before any new model call'],
    ['reject', 'Rejected', 'reject a tool call waiting for approval: the model sees the refusal (and the reason) as its result'],
  ] as const) {
    const command = byOption(
      program
        .command(name)
        .description(description)
        .argument('<runId>', 'the run')
        .argument('<toolCallId>', 'the call (gnl show lists what the run waits for)'),
      'decides',
    ).option('--reason <text>', name === 'reject' ? 'why (recorded; the model sees it)' : 'why (recorded)');
    if (name === 'approve') {
      command.addOption(
        new Option(
          '--args <json>',
          "approve with these arguments instead of the model's (checked against the tool's input schema; the call executes with them). Under an approval rule with four eyes or more than one approval, they are proposed: others approve them with --as-changed",
        ).conflicts('asChanged'),
      );
      command.option('--as-changed', 'approve the arguments as someone changed them under the approval rule (gnl show lists them)');
    }
    jsonOption(command).action(async (runId: string, toolCallId: string, opts: DecisionFlags & { args?: string; asChanged?: boolean }) => {
      const journal = session.storage().runs;
      const request = { runId, toolCallId, by: opts.by, ...(opts.reason !== undefined ? { reason: opts.reason } : {}) };
      if (name === 'reject') {
        await report(session, { runId, toolCallId, decision: await journal.reject(request), verb, asJson: opts.json });
        return;
      }
      // A call whose approval rule names a role: --by must be an enabled account with it (the Studio and the API check theirs).
      const asked = (await journal.getRun(runId))?.pending.find((p) => p.toolCallId === toolCallId && p.kind === 'approval');
      const proposal = asked?.kind === 'approval' ? asked.proposal : undefined;
      if (opts.asChanged && !proposal) throw new CliError(`--as-changed: nobody has changed the arguments of ${toolCallId}; approve it as asked.`, EXIT.usage);
      const input = opts.args !== undefined ? parseJsonOption('--args', opts.args) : opts.asChanged ? proposal?.input : undefined;
      if (asked?.kind === 'approval' && asked.rule?.role) {
        const account = await findOperator(opts.by, { storage: session.storage() });
        const role = account && !account.disabled ? account.role : undefined;
        assertApproverRole({ runId, toolCallId, toolName: asked.toolName, rule: asked.rule, by: opts.by, role });
      }
      const inputSchema = input !== undefined ? await schemaOfCall(session, runId, toolCallId, toolInputSchema) : undefined;
      const decision = await journal.approve({ ...request, ...(input !== undefined ? { input } : {}), ...(inputSchema ? { inputSchema } : {}) });
      const extra =
        input === undefined
          ? []
          : decision.outcome === 'counted'
            ? [`Arguments proposed: ${json(input, session.maxWidth)}`]
            : [`It executes with the arguments you approved: ${json(input, session.maxWidth)}`];
      const counted = decision.outcome === 'counted' && decision.approvals ? decision.approvals : undefined;
      const proposed = counted && decision.editedInput === true;
      const said = proposed
        ? `Proposed changed arguments (approvals: ${counted.given} of ${counted.needed}; others approve them with --as-changed) for`
        : counted
          ? `Counted an approval (${counted.given} of ${counted.needed}) of`
          : input !== undefined
            ? 'Approved with changed arguments'
            : verb;
      await report(session, { runId, toolCallId, decision, verb: said, extra, asJson: opts.json });
    });
  }

  const resolve = byOption(
    program
      .command('resolve')
      .description(
        'settle a side effect whose outcome is unknown (the process died between the call and its record): done, with its output, or not done (the next resume runs it again under the same idempotency key)',
      )
      .argument('<runId>', 'the run')
      .argument('<toolCallId>', 'the call (gnl show lists what the run waits for)')
      .addOption(new Option('--done', 'it happened (check the outside system first)').conflicts('notDone'))
      .addOption(new Option('--not-done', 'it did not happen: the next resume runs it again under the same key'))
      .addOption(new Option('--output <json>', 'with --done: the result the model gets, as JSON').conflicts('notDone')),
    'decides',
  ).option('--reason <text>', 'why (recorded), e.g. what the outside system shows');
  jsonOption(resolve).action(async (runId: string, toolCallId: string, opts: DecisionFlags & { done?: boolean; notDone?: boolean; output?: string }) => {
    if (!opts.done && !opts.notDone) throw new CliError('say --done (it happened; --output gives its result) or --not-done (run it again).', EXIT.usage);
    const output = opts.output !== undefined ? parseJsonOption('--output', opts.output) : undefined;
    const outputSchema = output !== undefined ? await outputSchemaOfCall(session, runId, toolCallId) : undefined;
    const decision = await session.storage().runs.resolveSideEffect({
      runId,
      toolCallId,
      outcome: opts.done ? 'done' : 'not-done',
      ...(output !== undefined ? { output } : {}),
      ...(outputSchema ? { outputSchema } : {}),
      by: opts.by,
      ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
    });
    await report(session, {
      runId,
      toolCallId,
      decision,
      verb: opts.done ? 'Marked done' : 'Marked not done',
      extra: opts.done
        ? [output !== undefined ? `Output the model gets: ${json(output, session.maxWidth)}` : 'No output given: the model gets none.']
        : ['The next resume runs it again under the same idempotency key.'],
      asJson: opts.json,
    });
  });

  const provide = byOption(
    program
      .command('provide')
      .description('give the result of a call to a tool without execute (the run waits for it): the next resume hands it to the model as the tool result')
      .argument('<runId>', 'the run')
      .argument('<toolCallId>', 'the call (gnl show lists what the run waits for)')
      .requiredOption('--output <json>', 'the result the model gets, as JSON'),
    'provides it',
  ).option('--reason <text>', 'where the result comes from (recorded)');
  jsonOption(provide).action(async (runId: string, toolCallId: string, opts: DecisionFlags & { output: string }) => {
    const output = parseJsonOption('--output', opts.output);
    const outputSchema = await outputSchemaOfCall(session, runId, toolCallId);
    const decision = await session.storage().runs.provideToolResult({
      runId,
      toolCallId,
      output,
      ...(outputSchema ? { outputSchema } : {}),
      by: opts.by,
      ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
    });
    await report(session, {
      runId,
      toolCallId,
      decision,
      verb: 'Provided the result of',
      extra: [`Output the model gets: ${json(output, session.maxWidth)}`],
      asJson: opts.json,
    });
  });
}

/**
 * The output schema the call's tool declares, through the agent registry (the run records its agent):
 * the journal refuses an output that does not match it, naming the fields, and records nothing.
 */
function outputSchemaOfCall(session: CliSession, runId: string, toolCallId: string) {
  return schemaOfCall(session, runId, toolCallId, toolOutputSchema);
}

async function schemaOfCall(session: CliSession, runId: string, toolCallId: string, schemaOf: typeof toolOutputSchema) {
  const run = await session.storage().runs.getRun(runId);
  const item = run?.pending.find((p) => p.toolCallId === toolCallId);
  return item ? schemaOf(session.registry, run?.input.agent, item.toolName) : undefined;
}

async function report(
  session: CliSession,
  args: { runId: string; toolCallId: string; decision: Decision; verb: string; extra?: string[]; asJson: boolean | undefined },
) {
  const { runId, toolCallId, decision, verb, extra = [], asJson } = args;
  const run = await session.storage().runs.getRun(runId);
  const item = run?.pending.find((p) => p.toolCallId === toolCallId);
  const open = run?.pending.filter((p) => !p.decision) ?? [];
  const call = item ? `${clean(item.toolName)} (${clean(toolCallId)})` : clean(toolCallId);
  const next =
    open.length > 0
      ? `Still waiting for ${open.map((p) => `${clean(p.toolName)} (${clean(p.toolCallId)})`).join(', ')}; when all are decided: gnl resume ${shellQuote(runId)} --by <you>`
      : `Continue the run: gnl resume ${shellQuote(runId)} --by <you> (--wait to follow it)`;
  session.print(
    {
      text: [`${verb} ${call} of run ${clean(runId)}, by ${clean(decision.by)}${decision.reason ? `: ${clean(decision.reason)}` : ''}.`, ...extra, next],
      data: { runId, toolCallId, decision, run: run ?? null },
    },
    asJson,
  );
}
