/**
 * `gnl erase <runId…> | --subject <id> --by <login> --reason <text>`: erase runs whose data is sealed with a
 * key of their own (docs/erasure.md): their keys destroyed, their data unreadable from then on, their
 * shape and the audit kept. Needs an enabled operator account (audited before anything is erased) and
 * GNL_JOURNAL_KEY. Each run's outcome is printed; any refused run makes the exit code 4 (conflict).
 * `gnl erasures`: the erasure log (gnl.erasures, append-only), newest first.
 */
import type { Command } from 'commander';
import { eraseRunsAs } from '@/lib/accounts';
import { clean, dateTime, table } from './format';
import { CliError, EXIT } from './failures';
import { jsonOption, wholeNumber } from './options';
import type { CliSession } from './session';

interface EraseOptions {
  subject?: string;
  by?: string;
  reason?: string;
  json?: boolean;
}

export function registerEraseCommands(program: Command, session: CliSession): void {
  const erase = program
    .command('erase')
    .description('erase runs: destroy their own keys, so their data can never be read again; their shape and the audit stay (docs/erasure.md)')
    .argument('[runIds...]', 'the runs to erase (completed, failed or canceled)')
    .option('--subject <id>', 'erase every run recorded for this subject (runDurable/startRun `subject`) instead')
    .requiredOption('--by <login>', 'the operator account that erases (an enabled one; audited)')
    .requiredOption('--reason <text>', 'why: the deletion request, its reference (recorded with each erasure)');
  jsonOption(erase).action(async (runIds: string[], opts: EraseOptions) => {
    if (runIds.length > 0 === (opts.subject !== undefined)) throw new CliError('Name the runs to erase, or --subject <id>; one of the two.', EXIT.usage);
    const target = opts.subject !== undefined ? { subject: opts.subject } : { runIds };
    const outcomes = await eraseRunsAs({ storage: session.storage(), login: opts.by as string, reason: opts.reason as string, ...target });
    const lines =
      outcomes.length === 0
        ? [`No run is recorded for subject ${clean(opts.subject ?? '')} with a key of its own: nothing erased.`]
        : outcomes.map((o) =>
            o.outcome === 'erased'
              ? `Erased ${clean(o.runId)} at ${dateTime(o.at)}.`
              : o.outcome === 'already-erased'
                ? `${clean(o.runId)} was erased already, by ${clean(o.erasure.by)} at ${dateTime(o.erasure.at)}.`
                : `Refused ${clean(o.runId)}: ${o.why}.`,
          );
    session.print({ text: lines, data: outcomes }, opts.json);
    const refused = outcomes.filter((o) => o.outcome === 'refused');
    // The code after the printed outcomes (main.ts gives the journal back, then the process exits with it).
    if (refused.some((o) => o.outcome === 'refused' && o.why === 'no run has this id in this journal') && refused.length === outcomes.length)
      session.exitCode = EXIT.notFound;
    else if (refused.length > 0) session.exitCode = EXIT.conflict;
  });

  const log = program
    .command('erasures')
    .description('the erasure log, newest first (gnl.erasures, append-only)')
    .option('--run <runId>', 'only this run')
    .option('--limit <n>', 'entries (1 to 10000, default 50)', wholeNumber(1, 10_000));
  jsonOption(log).action(async (opts: { run?: string; limit?: number; json?: boolean }) => {
    const entries = await session.storage().erasure.erasures({ limit: opts.limit ?? 50, ...(opts.run ? { runId: opts.run } : {}) });
    session.print(
      {
        text: entries.length
          ? table(
              ['ERASED', 'RUN', 'SUBJECT', 'BY', 'REASON'],
              entries.map((e) => [dateTime(e.at), clean(e.runId), clean(e.subject ?? ''), clean(e.by), clean(e.reason)]),
            )
          : ['The erasure log is empty: no run was erased.'],
        data: entries,
      },
      opts.json,
    );
  });
}
