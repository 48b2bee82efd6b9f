/**
 * `gnl bulk cancel|resume|retry|approve|migrate`: an action on every run a filter matches, in two steps. Without
 * --yes it is a dry run: it counts and lists what would change and what would be skipped and why, and
 * records a preview. With --yes --preview <id> it applies that preview (limited to the runs it listed,
 * each judged again now); with --yes and a filter it makes the preview and applies it at once. Each run
 * is changed through the executor layer's per-run operations (lib/executor bulk-operation.ts), journaled in the run
 * with --by and --reason. A run that failed makes the command exit 1 after printing every result.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { RUN_STATUSES } from '@/lib/durable';
import {
  applyBulk,
  BULK_ACTIONS,
  type BulkActionName,
  type BulkApplied,
  type BulkFilterInput,
  type BulkPreview,
  type BulkRunRef,
  describeFilter,
  parseAge,
  previewBulk,
} from '@/lib/executor';
import { CliError, EXIT } from './failures';
import { clean, shellQuote } from './format';
import { byOption, jsonOption, wholeNumber } from './options';
import type { CliSession } from './session';

interface BulkFlags {
  by: string;
  reason?: string;
  yes?: boolean;
  preview?: string;
  list: number;
  json?: boolean;
  status?: (typeof RUN_STATUSES)[number];
  agent?: string;
  agentVersion?: string;
  tool?: string;
  olderThan?: string;
  newerThan?: string;
}

function age(raw: string): string {
  if (parseAge(raw) === undefined) throw new InvalidArgumentError('Expected a duration like 90s, 30m, 2h or 7d.');
  return raw;
}

export function registerBulkCommands(program: Command, session: CliSession): void {
  const bulk = program
    .command('bulk')
    .description('cancel, resume, retry, approve or migrate every run a filter matches: a dry run first (the default), then --yes');
  for (const name of Object.keys(BULK_ACTIONS) as BulkActionName[]) {
    const command = byOption(
      bulk
        .command(name)
        .description(`${BULK_ACTIONS[name].summary}, for every run the filter matches`)
        .addOption(new Option('--status <status>', 'runs in this status').choices(RUN_STATUSES))
        .option('--agent <name>', 'runs of this agent')
        .option('--agent-version <version>', 'runs started with this agent version (gnl show prints it)')
        .option('--tool <name>', name === 'approve' ? 'the tool whose waiting calls are approved (required)' : 'runs waiting on a call of this tool')
        .option('--older-than <age>', 'runs created longer ago than this (90s, 30m, 2h, 7d)', age)
        .option('--newer-than <age>', 'runs created more recently than this', age)
        .option('--reason <text>', 'why (recorded in every run changed; required with --yes)')
        .option('--yes', 'do it (without: a dry run that changes nothing)')
        .option('--preview <id>', 'with --yes: apply this dry run (only the runs it listed, each judged again now) instead of a new one')
        .option('--list <n>', 'how many runs the dry run lists of each kind', wholeNumber(0, 1000), 20),
      'acts',
    );
    jsonOption(command).action(async (opts: BulkFlags) => run(session, name, opts));
  }
}

async function run(session: CliSession, action: BulkActionName, opts: BulkFlags): Promise<void> {
  const storage = session.storage();
  const filter = filterOf(opts);
  if (opts.preview && !opts.yes) throw new CliError('--preview applies a dry run: add --yes (and --reason).', EXIT.usage);
  if (opts.preview && Object.keys(filter).length > 0) throw new CliError('--preview applies the dry run’s own filter: give no filter with it.', EXIT.usage);
  if (opts.yes && !opts.reason?.trim()) throw new CliError('--yes needs --reason "…": it is recorded in every run changed.', EXIT.usage);
  const preview = opts.preview ? undefined : await previewBulk({ storage, registry: session.registry, action, filter, by: opts.by, listLimit: opts.list });
  if (!opts.yes) {
    session.print({ text: previewLines(preview as BulkPreview, opts), data: preview }, opts.json);
    return;
  }
  const applied = await applyBulk({
    storage,
    registry: session.registry,
    previewId: opts.preview ?? (preview as BulkPreview).previewId,
    action,
    by: opts.by,
    reason: opts.reason as string,
  });
  session.print(
    { text: [...(preview ? previewLines(preview, opts).slice(0, 2) : []), ...appliedLines(applied)], data: { ...(preview ? { preview } : {}), applied } },
    opts.json,
  );
  if (applied.counts.failed > 0) throw new CliError(`${applied.counts.failed} run(s) failed (listed above); the others were applied.`, EXIT.unexpected);
}

function filterOf(opts: BulkFlags): BulkFilterInput {
  return {
    ...(opts.status ? { status: opts.status } : {}),
    ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
    ...(opts.agentVersion !== undefined ? { version: opts.agentVersion } : {}),
    ...(opts.tool !== undefined ? { tool: opts.tool } : {}),
    ...(opts.olderThan !== undefined ? { olderThan: opts.olderThan } : {}),
    ...(opts.newerThan !== undefined ? { newerThan: opts.newerThan } : {}),
  };
}

const refLine = (r: BulkRunRef) => `  ${clean(r.runId)}  ${r.status}${r.agent ? `  agent ${clean(r.agent)}` : ''}  created ${r.createdAt.toISOString()}`;
const countsBy = (skipped: Record<string, number>) =>
  Object.entries(skipped)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');

function previewLines(preview: BulkPreview, opts: BulkFlags): string[] {
  const { counts } = preview;
  const skippedTotal = counts.matched - counts.wouldChange;
  const lines = [
    `Dry run of bulk ${preview.action} (${clean(describeFilter(preview.filter))}): ${counts.matched} run(s) match.`,
    `  Would change ${counts.wouldChange}; would skip ${skippedTotal}${skippedTotal > 0 ? ` (${countsBy(counts.skipped)})` : ''}.`,
  ];
  if (preview.wouldChange.length > 0)
    lines.push(
      `Would change${counts.wouldChange > preview.wouldChange.length ? ` (first ${preview.wouldChange.length})` : ''}:`,
      ...preview.wouldChange.map(refLine),
    );
  if (preview.skipped.length > 0)
    lines.push(
      `Would skip${skippedTotal > preview.skipped.length ? ` (first ${preview.skipped.length})` : ''}:`,
      ...preview.skipped.map((s) => `${refLine(s)}  ${s.reason}: ${clean(s.message)}`),
    );
  if (counts.wouldChange > 0)
    lines.push(
      `Preview ${preview.previewId} (until ${preview.expiresAt.toISOString()}). Do it: gnl bulk ${preview.action} --preview ${preview.previewId} --by ${shellQuote(opts.by)} --reason "…" --yes`,
    );
  return lines;
}

function appliedLines(applied: BulkApplied): string[] {
  const { counts, sincePreview } = applied;
  const lines = [
    `Applied bulk ${applied.action} (preview ${applied.previewId}) by ${clean(applied.by)}: ${clean(applied.reason)}.`,
    `  ${counts.changed} changed, ${counts.skipped} skipped, ${counts.failed} failed (the dry run counted ${applied.preview.wouldChange}).`,
  ];
  if (sincePreview.noLongerQualified > 0) lines.push(`  ${sincePreview.noLongerQualified} run(s) changed since the dry run and were skipped (below).`);
  if (sincePreview.newlyMatching > 0)
    lines.push(`  ${sincePreview.newlyMatching} run(s) match now that the dry run did not include: left alone (a new dry run includes them).`);
  for (const result of applied.results) {
    if (result.outcome === 'skipped') lines.push(`  skipped ${clean(result.runId)}  ${result.reason}: ${clean(result.message)}`);
    if (result.outcome === 'failed') lines.push(`  FAILED  ${clean(result.runId)}  ${clean(result.error.name)}: ${clean(result.error.message)}`);
  }
  return lines;
}
