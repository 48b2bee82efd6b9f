/**
 * `gnl export` and `gnl import`: a run's whole journal as JSON lines, and back into a journal
 * (lib/durable/export/run-export.ts; docs/operations.md#export-and-import). Export redacts secrets as the
 * Studio shows them; `--reveal-secrets` writes them in clear, only with a journal key and an enabled
 * operator account (`--by`), audited before anything is read (lib/accounts export-audit.ts). Import is
 * all or nothing; a redacted export comes in as evidence (canceled, never resumed).
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { auditRevealedExport, processActor } from '@/lib/accounts';
import { exportRun, exportText, parseRunExport, planImport, secretFieldsFromEnv } from '@/lib/durable';
import { writeExport } from './export-file';
import { CliError, EXIT } from './failures';
import { clean } from './format';
import { jsonOption } from './options';
import type { CliSession } from './session';

interface ExportFlags {
  out?: string;
  revealSecrets?: boolean;
  by?: string;
  json?: boolean;
}

interface ImportFlags {
  as?: string;
  by?: string;
  json?: boolean;
}

export function registerTransferCommands(program: Command, session: CliSession): void {
  const exporting = program
    .command('export')
    .description("write a run's whole journal as JSON lines (a header, then one line per event), secrets redacted; to stdout unless --out")
    .argument('<runId>', 'the run to export')
    .option('--out <file>', 'write to this file (created private to you: mode 600) instead of stdout')
    .option('--reveal-secrets', 'write secrets in clear: needs GNL_JOURNAL_KEY and --by <your operator login>; audited (gnl operators history)')
    .option('--by <login>', 'with --reveal-secrets: the operator account that reveals them (an enabled one)');
  jsonOption(exporting).action(async (runId: string, opts: ExportFlags) => {
    const storage = session.storage();
    if (opts.revealSecrets) {
      if (!opts.by) throw new CliError('--reveal-secrets needs --by <login>: the operator account that reveals them (audited).', EXIT.usage);
      if (!storage.encryptsSecrets)
        throw new CliError(
          '--reveal-secrets needs the journal key: set GNL_JOURNAL_KEY (the key the journal seals secrets with; docs/secrets.md).',
          EXIT.usage,
        );
      await auditRevealedExport({ storage, login: opts.by, runId });
    } else if (opts.by) throw new CliError('--by goes with --reveal-secrets (a redacted export records nothing).', EXIT.usage);
    const exported = await exportRun({ journal: storage.runs, runId, revealSecrets: opts.revealSecrets === true, fields: secretFieldsFromEnv(process.env) });
    const text = exportText(exported);
    const out = await writeExport(session, text, opts.out, opts.json);
    if (out === undefined) return;
    const { header } = exported;
    session.print(
      {
        text: [
          `Exported run ${clean(runId)}: ${header.eventCount} events (${header.status}), secrets ${header.redacted ? 'redacted' : 'IN CLEAR'}, to ${clean(out)}.`,
        ],
        data: { out, header },
      },
      opts.json,
    );
  });

  const importing = program
    .command('import')
    .description(
      'bring a run in from a gnl export file, all or nothing; a redacted export comes in as evidence (canceled: it never executes a tool), a revealed one as it was',
    )
    .argument('<file>', 'the export (JSON lines); - reads stdin')
    .option(
      '--as <runId>',
      "import under this run id (the export's own is taken here); recorded idempotency keys stay as recorded, new calls take the exported run's keys",
    )
    .option('--by <who>', "who imports (recorded on an evidence import's cancel); default: this OS account");
  jsonOption(importing).action(async (file: string, opts: ImportFlags) => {
    const text =
      file === '-'
        ? await readStdin(session)
        : await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
            if (error.code === 'ENOENT') throw new CliError(`no file ${file}.`, EXIT.notFound, { cause: error });
            throw error;
          });
    const parsed = parseRunExport(text);
    const plan = planImport({ parsed, by: opts.by ?? processActor(), ...(opts.as !== undefined ? { runId: opts.as } : {}) });
    const recorded = await session.storage().runs.importRun(plan);
    const run = await session.storage().runs.getRun(plan.runId);
    const runId = run?.runId ?? plan.runId; // the id as recorded: in NFC (docs/limits.md, "runIds")
    const from = parsed.header.runId === runId ? '' : ` (exported as ${clean(parsed.header.runId)})`;
    session.print(
      {
        text: [
          `Imported run ${clean(runId)}${from}: ${parsed.events.length} events, status ${run?.status ?? 'unknown'}.`,
          ...(plan.evidence
            ? [
                plan.cancels
                  ? 'The export was redacted: the run is evidence only, canceled now (a run-cancel after its events); it never executes a tool.'
                  : `The export was redacted: the run is evidence only; it was ${run?.status ?? 'finished'} before the export and never executes a tool again.`,
              ]
            : []),
        ],
        data: { runId, exportedAs: parsed.header.runId, events: recorded.length, evidence: plan.evidence, run },
      },
      opts.json,
    );
  });
}

async function readStdin(session: CliSession): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of session.io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
