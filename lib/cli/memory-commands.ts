/**
 * What memory holds about a resource (docs/memory.md), from the command line: its working memory (every
 * version, who wrote it and why) and its newest items. Read-only: a person's memory is erased with the
 * audited `gnl erase --subject` (docs/erasure.md).
 */
import type { Command } from 'commander';
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
}
