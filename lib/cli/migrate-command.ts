/**
 * `gnl migrate <runId> [--to <version>] --by <who> --reason <why> [--dry-run] [--force]`: move a run to
 * another registered version of its agent (lib/executor's previewMigration / migrateRun). The preview is
 * printed first, always: what is kept (every finished call, with its key), what runs again, what would
 * be unsafe. --dry-run stops there and writes nothing.
 */
import type { Command } from 'commander';
import { type MigrationPreview, migrateRun, previewMigration } from '@/lib/executor';
import { CliError, EXIT } from './failures';
import { clean, cut, shellQuote } from './format';
import { jsonOption } from './options';
import type { CliSession } from './session';

export function registerMigrateCommand(program: Command, session: CliSession): void {
  const migrate = program
    .command('migrate')
    .description('move a run to another registered version of its agent (e.g. one stranded by a deploy); recorded steps and finished calls are kept')
    .argument('<runId>', 'the run')
    .option(
      '--to <version>',
      "the version to move to (an agent's: 16 hex characters, as gnl show / gnl agents print them; a workflow's: as its definition names it; default: the current one)",
    )
    .option('--by <who>', "who migrates (recorded: an operator's login or a service name); required unless --dry-run")
    .option('--reason <text>', 'why (recorded); required unless --dry-run')
    .option('--dry-run', 'print the preview only; write nothing')
    .option('--force', 'migrate although the preview found it unsafe (the refusals are recorded as overridden)');
  jsonOption(migrate).action(async (runId: string, opts: { to?: string; by?: string; reason?: string; dryRun?: boolean; force?: boolean; json?: boolean }) => {
    const context = { storage: session.storage(), registry: session.registry, ...(opts.to !== undefined ? { to: opts.to } : {}) };
    if (opts.dryRun) {
      const preview = await previewMigration(runId, context);
      session.print({ text: [...previewLines(preview, session.maxWidth), '', dryRunNext(preview)], data: { preview } }, opts.json);
      return;
    }
    if (!opts.by || !opts.reason)
      throw new CliError('say who migrates and why: --by <who> --reason <text> (or --dry-run to preview). Nothing was written.', EXIT.usage);
    const migrated = await migrateRun(runId, { ...context, by: opts.by, reason: opts.reason, ...(opts.force ? { force: true } : {}) });
    session.print(
      {
        text: [
          ...previewLines(migrated.preview, session.maxWidth),
          '',
          `Migrated run ${clean(runId)} to version ${clean(migrated.preview.to)} (by ${clean(opts.by)}: ${clean(opts.reason)}), event #${migrated.event.seq}.`,
          migrated.preview.status === 'waiting-approval' || migrated.preview.status === 'waiting-tool-result' || migrated.preview.status === 'blocked'
            ? `It still waits for people (${migrated.preview.status}); once decided: gnl resume ${shellQuote(runId)} --by <you>`
            : 'An executor continues it on the new version.',
        ],
        data: { preview: migrated.preview, event: migrated.event, run: migrated.run, queue: migrated.queue ?? null },
      },
      opts.json,
    );
  });
}

/** The preview as lines: versions, what differs, what is kept, what runs again, what is refused. */
export function previewLines(preview: MigrationPreview, max: number | undefined): string[] {
  const lines = [
    `Run       ${clean(preview.runId)} (${preview.status})`,
    `Agent     ${clean(preview.agent)}: version ${clean(preview.from ?? '?')} → ${clean(preview.to)}`,
    `Changes   ${preview.changed.map((d) => clean(d.field)).join(', ')}`,
    `Kept      ${preview.kept.length} finished call${preview.kept.length === 1 ? '' : 's'}: replayed from the journal, never executed again`,
    ...preview.kept.map((call) => `  ${clean(call.toolName)} (${clean(call.toolCallId)}) · ${call.outcome} · key ${clean(call.idempotencyKey)}`),
    `Runs next ${preview.reruns.length ? '' : 'no unfinished call; '}model step ${preview.nextStep + 1} is asked by version ${clean(preview.to)}`,
    ...preview.reruns.map(
      (call) =>
        `  ${clean(call.toolName)} (${clean(call.toolCallId)}) · ${call.action}${call.toolChanged ? ' · its tool changed' : ''} · ${cut(clean(call.why), max)}`,
    ),
  ];
  if (preview.refusals.length > 0) lines.push('Unsafe    (refused unless --force)', ...preview.refusals.map((r) => `  ${cut(clean(r), max)}`));
  return lines;
}

function dryRunNext(preview: MigrationPreview): string {
  const command = `gnl migrate ${shellQuote(preview.runId)} --to ${preview.to} --by <you> --reason "<why>"`;
  return preview.safe ? `Nothing written. To migrate: ${command}` : `Nothing written. Unsafe: only ${command} --force migrates it.`;
}
