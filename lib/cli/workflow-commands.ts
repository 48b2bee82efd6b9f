/**
 * Workflows from the command line (docs/workflows.md): list the registered ones, start one, send a
 * waiting run an event, print a run's family tree. Each is one call of the executor layer, the same
 * functions the Studio's server actions call.
 */
import type { Command } from 'commander';
import { describeWorkflow } from '@/lib/agents';
import { runTree, sendEvent, startWorkflow } from '@/lib/executor';
import { CliError, EXIT } from './failures';
import { clean, shellQuote, table } from './format';
import { byOption, jsonOption, parseJsonOption, waitOptions } from './options';
import { journalName } from './read-commands';
import { maybeWait, type WaitFlags } from './run-commands';
import type { CliSession } from './session';

export function registerWorkflowCommands(program: Command, session: CliSession): void {
  jsonOption(program.command('workflows').description('the registered workflows: name, version, the events each waits for and their payload schemas')).action(
    (opts: { json?: boolean }) => {
      const workflows = session.registry.listWorkflows().map(describeWorkflow);
      const text =
        workflows.length === 0
          ? ['No workflow is registered (agents/index.ts: createAgentRegistry(agents, { workflows }))']
          : table(
              ['WORKFLOW', 'VERSION', 'EVENTS', 'DESCRIPTION'],
              workflows.map((w) => [w.name, w.version, Object.keys(w.events).join(', ') || '-', clean(w.description)]),
            );
      session.print({ text, data: workflows }, opts.json);
    },
  );

  const workflow = program.command('workflow').description('workflows: start one (gnl workflows lists them)');
  const start = workflow
    .command('start')
    .description('start a run of a workflow: its input checked by the workflow’s schema, recorded in the journal and queued for an executor')
    .argument('<workflow>', 'the workflow, by its registered name')
    .requiredOption('--input <json>', 'the workflow’s input, as JSON (checked by its schema)')
    .option('--run-id <id>', 'names the job (default <workflow>:<uuid>); the same id with the same input returns the existing run')
    .option('--by <who>', 'who starts it (recorded on the run’s start)');
  waitOptions(start);
  jsonOption(start).action(async (name: string, opts: WaitFlags & { input: string; runId?: string; by?: string }) => {
    const started = await startWorkflow({
      storage: session.storage(),
      registry: session.registry,
      workflow: name,
      input: parseJsonOption('--input', opts.input),
      ...(opts.runId !== undefined ? { runId: opts.runId } : {}),
      ...(opts.by !== undefined ? { by: opts.by } : {}),
    });
    const intro = started.created
      ? [`Started run ${clean(started.runId)} (workflow ${clean(started.workflow)}).`]
      : [`Run ${clean(started.runId)} exists already with this input (${started.run.status}); nothing new was started.`];
    const result = await maybeWait(session, {
      runId: started.runId,
      afterSeq: started.created ? 0 : started.run.lastSeq,
      flags: opts,
      intro,
      data: { runId: started.runId, workflow: started.workflow, created: started.created, run: started.run },
    });
    session.print(result, opts.json);
  });

  const event = program.command('event').description('events for waiting workflows');
  const send = byOption(
    event
      .command('send')
      .description(
        'send a workflow run an event: checked by the schema the workflow declares for it, recorded in the run’s journal (kept until a wait takes it) and the run woken',
      )
      .argument('<runId>', 'the workflow run')
      .argument('<name>', 'the event’s name (gnl workflows lists each workflow’s events)')
      .option('--payload <json>', 'the event’s payload, as JSON (default null)')
      .option('--event-id <id>', 'names the event: the same id sent again is recorded once (default: a new id)'),
    'sends it',
  );
  jsonOption(send).action(async (runId: string, name: string, opts: { payload?: string; eventId?: string; by: string; json?: boolean }) => {
    const sent = await sendEvent({
      storage: session.storage(),
      registry: session.registry,
      runId,
      name,
      payload: opts.payload !== undefined ? parseJsonOption('--payload', opts.payload) : null,
      by: opts.by,
      ...(opts.eventId !== undefined ? { eventId: opts.eventId } : {}),
    });
    const text = sent.recorded
      ? [`Event ${clean(name)} (${clean(sent.eventId)}) recorded in run ${clean(sent.runId)} by ${clean(opts.by)}; the run is woken.`]
      : [`Event ${clean(sent.eventId)} was recorded in run ${clean(sent.runId)} already: nothing new was written.`];
    session.print({ text, data: sent }, opts.json);
  });

  jsonOption(
    program
      .command('tree')
      .description('a workflow run’s family: the topmost run of its tree and every child run under it, with their statuses')
      .argument('<runId>', 'any run of the tree'),
  ).action(async (runId: string, opts: { json?: boolean }) => {
    const tree = await runTree({ storage: session.storage() }, runId);
    if (!tree) throw new CliError(`No run "${clean(runId)}" in ${journalName(session)}.`, EXIT.notFound);
    const text = tree.nodes.map((node) => {
      const mark = node.runId === runId ? '  ← this run' : '';
      const step = node.step ? ` (step ${clean(node.step)})` : '';
      return `${'  '.repeat(node.depth)}${clean(node.runId)}  ${node.kind} ${clean(node.name)}  ${node.status ?? 'not started'}${step}${mark}`;
    });
    if (tree.truncated) text.push(`… more children than listed: gnl show ${shellQuote(tree.rootRunId)}`);
    session.print({ text, data: { ...tree, nodes: tree.nodes.map((node) => ({ ...node, status: node.status ?? null })) } }, opts.json);
  });
}
