/** Reading the journal: list, show, agents. Nothing here writes. */
import { type Command, Option } from 'commander';
import { toolDeclarations } from '@/lib/agents';
import { loadPriceTable } from '@/lib/cost/price-file';
import { planResume, RUN_STATUSES, RunState, type RunStatus } from '@/lib/durable';
import { queueEntry, runNotifications } from '@/lib/executor';
import { costLines, runCost } from './cost-view';
import { CliError, EXIT } from './failures';
import { clean, table } from './format';
import { jsonOption, wholeNumber } from './options';
import { nextStepLines, notificationLines, planLines, runHeaderLines, runListLines } from './run-view';
import type { CliSession } from './session';
import { timelineLines } from './timeline';

/** Which journal this process reads, for "not found" messages (a run in another journal is the usual cause). */
export function journalName(session: CliSession): string {
  const storage = session.storage();
  return storage.kind === 'pglite' ? `the embedded journal at ${storage.dataDir}` : 'the Postgres journal (DATABASE_URL)';
}

export function registerReadCommands(program: Command, session: CliSession): void {
  const list = program
    .command('list')
    .description('list runs, newest first')
    .addOption(new Option('--status <status>', 'only runs in this status').choices(RUN_STATUSES))
    .option('--limit <n>', 'runs per page (1 to 500, default 50)', wholeNumber(1, 500))
    .option('--cursor <cursor>', 'the next page (printed under a full page)');
  jsonOption(list).action(async (opts: { status?: RunStatus; limit?: number; cursor?: string; json?: boolean }) => {
    const page = await session.storage().runs.listRuns({
      ...(opts.status ? { status: opts.status } : {}),
      ...(opts.limit ? { limit: opts.limit } : {}),
      ...(opts.cursor ? { cursor: opts.cursor } : {}),
    });
    session.print({ text: runListLines(page, opts), data: page }, opts.json);
  });

  const show = program
    .command('show')
    .description('a run: its status, its cost, what it waits for (and the commands that decide it), and its journal as a timeline')
    .argument('<runId>', 'the run')
    .option('--full', 'print long values (model text, arguments, outputs) whole instead of cut');
  jsonOption(show).action(async (runId: string, opts: { full?: boolean; json?: boolean }) => {
    if (opts.full) session.maxWidth = undefined;
    const { runs } = session.storage();
    const run = await runs.getRun(runId);
    if (!run) throw new CliError(`no run "${runId}" in ${journalName(session)}.`, EXIT.notFound);
    const [events, queue, notifications] = await Promise.all([
      runs.events(runId),
      queueEntry(runId, { storage: session.storage() }),
      runNotifications(runId, { storage: session.storage() }),
    ]);
    // The price table is read first so a bad GNL_PRICES_FILE fails the command (PriceFileError), never shows a guess.
    const cost = runCost(events, loadPriceTable());
    const next = nextStepLines(run, queue, session.maxWidth);
    const plan = planResume({ state: new RunState(events), declarations: toolDeclarations(session.registry, run.input.agent), now: Date.now() });
    const planned = planLines(plan, session.maxWidth);
    session.print(
      {
        text: [
          ...runHeaderLines(run, queue, events),
          ...costLines(cost),
          ...notificationLines(notifications),
          ...(next.length ? ['', ...next] : []),
          ...(planned.length ? ['', ...planned] : []),
          '',
          'Timeline (UTC):',
          ...timelineLines(events, session.maxWidth),
        ],
        data: { run, queue: queue ?? null, notifications, plan, cost, events },
      },
      opts.json,
    );
  });

  const agents = program
    .command('agents')
    .description('the agents this deployment registers (agents/index.ts), by name: every registered version, the current one (new runs start on it) marked');
  jsonOption(agents).action((opts: { json?: boolean }) => {
    const all = session.registry.listAgents().flatMap((current) =>
      session.registry.listVersions(current.name).map((agent) => ({
        name: agent.name,
        version: agent.version,
        current: agent === current,
        onChange: agent.onChange,
        model: `${agent.model.provider}/${agent.model.modelId}`,
        tools: Object.keys(agent.tools).sort(),
        description: agent.description ?? null,
      })),
    );
    session.print(
      {
        text: table(
          ['NAME', 'VERSION', 'CURRENT', 'ON CHANGE', 'MODEL', 'TOOLS', 'DESCRIPTION'],
          all.map((a) => [a.name, a.version, a.current ? 'yes' : '', a.onChange, clean(a.model), a.tools.join(', '), clean(a.description ?? '')]),
        ),
        data: all,
      },
      opts.json,
    );
  });
}
