/**
 * What memory holds about a resource (docs/memory.md), from the command line: `gnl memory show` (its
 * working memory, every version with who and why, and its newest items) and `gnl memory export` (all of
 * it as JSON lines, for a person's request for their data; audited under an operator account before
 * anything is read) and `gnl memory erase` (all of it deleted and the tables rewritten, audited before;
 * no journal key needed: memory is not sealed). `gnl erase --subject` erases a person's runs and memory together.
 */
import type { Command } from 'commander';
import { auditOperatorAct } from '@/lib/accounts';
import { exportMemory, memoryExportText } from '@/lib/durable';
import { writeExport } from './export-file';
import { CliError, EXIT } from './failures';
import { clean, json } from './format';
import { jsonOption, wholeNumber } from './options';
import type { CliSession } from './session';

export function registerMemoryCommands(program: Command, session: CliSession): void {
  const memory = program.command('memory').description('what agents remember across runs (docs/memory.md)');
  jsonOption(
    memory
      .command('show')
      .description('a resource’s working memory (every version) and its newest facts and messages')
      .argument('<resource>', 'whose memory: a customer or user id, as the agent’s memoryTools name it')
      .option('--limit <n>', 'items to list (1 to 500, default 20)', wholeNumber(1, 500)),
  ).action(async (resource: string, opts: { limit?: number; json?: boolean }) => {
    const store = session.storage().memory;
    const [versions, items] = await Promise.all([store.workingHistory(resource), store.items({ resource, limit: opts.limit ?? 20 })]);
    const text =
      versions.length === 0 && items.length === 0
        ? [`Memory holds nothing about ${clean(resource)}.`]
        : [
            `Working memory of ${clean(resource)}: ${versions.length === 0 ? 'none' : `version ${versions[0]?.version}`}`,
            ...versions.map(
              (v) => `  v${v.version}  ${v.at}  by ${clean(v.updatedBy)}${v.reason ? `: ${clean(v.reason)}` : ''}  ${json(v.value, session.maxWidth)}`,
            ),
            `Items (newest ${items.length}):`,
            ...items.map(
              (i) =>
                `  #${i.id}  ${i.createdAt}  ${i.kind}${i.thread ? ` in ${clean(i.thread)}` : ''}${i.role ? ` (${clean(i.role)})` : ''}  ${json(i.text, session.maxWidth)}`,
            ),
          ];
    session.print({ text, data: { resource, working: versions, items } }, opts.json);
  });

  jsonOption(
    memory
      .command('export')
      .description('all a resource’s memory as JSON lines (working memory versions, facts, messages; no embeddings), audited')
      .argument('<resource>', 'whose memory: a customer or user id')
      .requiredOption('--by <login>', 'the operator account that exports it (an enabled one): audited as exported-memory before anything is read')
      .option('--out <file>', 'write to this new file (0600; never over an existing one) instead of stdout'),
  ).action(async (resource: string, opts: { by: string; out?: string; json?: boolean }) => {
    const storage = session.storage();
    await auditOperatorAct({ storage, login: opts.by, action: 'exported-memory', detail: { resource }, what: 'exporting memory needs an operator account' });
    const lines = await exportMemory({ store: storage.memory, resource, by: opts.by });
    const text = memoryExportText(lines);
    const out = await writeExport(session, text, opts.out, opts.json);
    if (out === undefined) return;
    const header = lines[0] as Extract<(typeof lines)[number], { type: 'header' }>;
    session.print(
      {
        text: [`Exported the memory of ${clean(resource)}: ${header.versions} working memory versions and ${header.items} items, to ${clean(out)}.`],
        data: { out, header },
      },
      opts.json,
    );
  });

  jsonOption(
    memory
      .command('erase')
      .description('delete everything memory holds about a resource (facts, messages, working memory), its tables rewritten; audited')
      .argument('<resource>', 'whose memory: a customer or user id')
      .requiredOption('--by <login>', 'the operator account that erases it (an enabled one): audited as erased-memory before anything is deleted')
      .requiredOption('--reason <text>', 'why (a deletion request and its reference): recorded in the audit'),
  ).action(async (resource: string, opts: { by: string; reason: string; json?: boolean }) => {
    const storage = session.storage();
    if (opts.reason.trim() === '') throw new CliError('--reason must say why (it is recorded in the audit).', EXIT.usage);
    await auditOperatorAct({
      storage,
      login: opts.by,
      action: 'erased-memory',
      detail: { resource, reason: opts.reason },
      what: 'erasing memory needs an operator account',
    });
    const erased = await storage.erasure.eraseMemory(resource);
    const text =
      erased.items + erased.versions === 0
        ? [`Memory held nothing about ${clean(resource)}: nothing was erased (the request is in the audit).`]
        : [`Erased the memory of ${clean(resource)}: ${erased.items} items and ${erased.versions} working memory versions, by ${clean(opts.by)}.`];
    session.print({ text, data: { resource, ...erased, by: opts.by } }, opts.json);
  });
}
