/**
 * `gnl retention run [--dry-run]`: drop the ended runs past their agent's retention now (defineAgent's
 * `retentionDays`, else GNL_RETENTION_DAYS), and memory older than GNL_MEMORY_RETENTION_DAYS, a batch at
 * a time, as the workers' scheduled job does, or list the first batch it would drop. `gnl retention log`:
 * what was dropped, from gnl.retention_log (`--memory`: gnl.memory_retention_log).
 */
import type { Command } from 'commander';
import { processActor } from '@/lib/accounts';
import {
  type DroppedMemory,
  type DroppedRun,
  dropExpiredMemoryBatches,
  dropExpiredRuns,
  findExpiredMemory,
  memoryRetentionLog,
  type ExpiredRun,
  findExpiredRuns,
  type RetentionCursor,
  type RetentionLogEntry,
  retentionLog,
  retentionPolicy,
  retentionSettingsFromEnv,
} from '@/lib/executor';
import { clean, dateTime, table } from './format';
import { jsonOption, wholeNumber } from './options';
import type { CliSession } from './session';

interface RunOptions {
  dryRun?: boolean;
  batchSize?: number;
  maxBatches?: number;
  json?: boolean;
}

export function registerRetentionCommands(program: Command, session: CliSession): void {
  const retention = program.command('retention').description("drop ended runs past their agent's retention (docs/operations.md#retention)");

  const run = retention
    .command('run')
    .description('drop the completed and canceled runs that ended more than their retention ago, each in its own transaction, each logged')
    .option('--dry-run', 'list the first batch it would drop; drop nothing')
    .option('--batch-size <n>', 'runs per batch (1 to 10000, default 100)', wholeNumber(1, 10_000))
    .option('--max-batches <n>', 'batches at most (1 to 100000, default 1000)', wholeNumber(1, 100_000));
  jsonOption(run).action(async (opts: RunOptions) => {
    const settings = retentionSettingsFromEnv();
    const policy = retentionPolicy({ registry: session.registry, defaultDays: settings.defaultDays });
    const policyLines = policy.agents.length
      ? [`Policy: ${policy.agents.map((p) => `${clean(p.agent)} ${p.days} d`).join(', ')}.`]
      : ['No policy: no agent sets retentionDays and GNL_RETENTION_DAYS is unset, so every run is kept.'];
    const memoryDays = settings.memoryDays;
    policyLines.push(
      memoryDays !== undefined
        ? `Memory: what is older than ${memoryDays} d (GNL_MEMORY_RETENTION_DAYS; a resource's newest working memory is kept).`
        : 'Memory: kept (GNL_MEMORY_RETENTION_DAYS is unset).',
    );
    const batchSize = opts.batchSize ?? settings.batchSize ?? 100;
    if (opts.dryRun) {
      const found = await findExpiredRuns({ storage: session.storage(), policy, batchSize });
      const memory = memoryDays !== undefined ? await findExpiredMemory({ storage: session.storage(), days: memoryDays, batchSize }) : undefined;
      const more = found.runs.length === batchSize ? [`… and maybe more (the first ${batchSize} shown; --batch-size for more).`] : [];
      const text = [...policyLines, found.runs.length ? `Would drop ${found.runs.length} runs (dry run: nothing dropped):` : 'No run to drop.'];
      const memoryText = memory?.resources.length
        ? [`Would trim the memory of ${memory.resources.length} resources: ${memory.resources.map(clean).join(', ')}.`]
        : [];
      session.print(
        {
          text: [...text, ...(found.runs.length ? expiredTable(found.runs) : []), ...more, ...memoryText],
          data: { dryRun: true, policy, wouldDrop: found.runs, memory: { days: memoryDays ?? null, wouldTrim: memory?.resources ?? [] } },
        },
        opts.json,
      );
      return;
    }
    const dropped: DroppedRun[] = [];
    const skipped: { runId: string; reason: string }[] = [];
    let after: RetentionCursor | undefined;
    let more = false;
    for (let batches = 0; ; batches++) {
      if (batches >= (opts.maxBatches ?? 1_000)) {
        more = true;
        break;
      }
      const batch = await dropExpiredRuns({ storage: session.storage(), policy, batchSize, droppedBy: `cli:${processActor()}`, ...(after ? { after } : {}) });
      dropped.push(...batch.dropped);
      skipped.push(...batch.skipped);
      after = batch.cursor;
      if (!batch.more) break;
    }
    const { dropped: trimmed, more: moreMemory } =
      memoryDays !== undefined
        ? await dropExpiredMemoryBatches({
            storage: session.storage(),
            days: memoryDays,
            batchSize,
            droppedBy: `cli:${processActor()}`,
            maxBatches: opts.maxBatches ?? 1_000,
          })
        : { dropped: [] as DroppedMemory[], more: false };
    const text = [
      ...policyLines,
      dropped.length ? `Dropped ${dropped.length} runs:` : 'Dropped no run.',
      ...(dropped.length ? expiredTable(dropped) : []),
      ...skipped.map((s) => `Skipped ${clean(s.runId)}: ${s.reason} (the next pass looks again).`),
      ...(more ? ['Stopped at --max-batches: more runs may be eligible.'] : []),
      ...(trimmed.length
        ? [`Trimmed the memory of ${trimmed.length} resources:`, ...memoryTable(trimmed)]
        : memoryDays !== undefined
          ? ['Trimmed no memory.']
          : []),
      ...(moreMemory ? ['Stopped at --max-batches: more memory may be eligible.'] : []),
    ];
    session.print(
      { text, data: { dryRun: false, policy, dropped, skipped, more, memory: { days: memoryDays ?? null, trimmed, more: moreMemory } } },
      opts.json,
    );
  });

  const log = retention
    .command('log')
    .description('what the retention job dropped, newest first (gnl.retention_log, append-only)')
    .option('--limit <n>', 'entries (1 to 10000, default 50)', wholeNumber(1, 10_000))
    .option('--agent <name>', "only this agent's runs")
    .option('--run <runId>', 'only this run id')
    .option('--memory', 'what memory retention deleted, per resource (gnl.memory_retention_log)')
    .option('--resource <id>', 'with --memory: only this resource');
  jsonOption(log).action(async (opts: { limit?: number; agent?: string; run?: string; memory?: boolean; resource?: string; json?: boolean }) => {
    if (opts.memory) {
      const entries = await memoryRetentionLog({
        storage: session.storage(),
        ...(opts.limit ? { limit: opts.limit } : {}),
        ...(opts.resource ? { resource: opts.resource } : {}),
      });
      session.print(
        { text: entries.length ? memoryTable(entries, true) : ['The memory retention log is empty: no memory was deleted.'], data: entries },
        opts.json,
      );
      return;
    }
    const entries = await retentionLog({
      storage: session.storage(),
      ...(opts.limit ? { limit: opts.limit } : {}),
      ...(opts.agent ? { agent: opts.agent } : {}),
      ...(opts.run ? { runId: opts.run } : {}),
    });
    session.print({ text: entries.length ? logTable(entries) : ['The retention log is empty: no run was dropped.'], data: entries }, opts.json);
  });
}

function expiredTable(runs: readonly ExpiredRun[]): string[] {
  return table(
    ['RUN', 'AGENT', 'STATUS', 'ENDED', 'POLICY'],
    runs.map((r) => [clean(r.runId), clean(r.agent), r.status, dateTime(r.endedAt), `${r.policyDays} d`]),
  );
}

function logTable(entries: readonly RetentionLogEntry[]): string[] {
  return table(
    ['DROPPED', 'RUN', 'AGENT', 'STATUS', 'ENDED', 'EVENTS', 'BYTES', 'POLICY', 'BY'],
    entries.map((e) => [
      dateTime(e.droppedAt),
      clean(e.runId),
      clean(e.agent),
      e.status,
      dateTime(e.endedAt),
      String(e.eventCount),
      String(e.payloadBytes + e.blobBytes),
      `${e.policyDays} d`,
      clean(e.droppedBy),
    ]),
  );
}

function memoryTable(entries: readonly DroppedMemory[], withWho = false): string[] {
  return table(
    ['DELETED', 'RESOURCE', 'ITEMS', 'VERSIONS', 'BYTES', 'OLDER THAN', 'POLICY', ...(withWho ? ['BY'] : [])],
    entries.map((e) => [
      dateTime(e.droppedAt),
      clean(e.resource),
      String(e.items),
      String(e.versions),
      String(e.bytes),
      dateTime(e.olderThan),
      `${e.policyDays} d`,
      ...(withWho ? [clean(e.droppedBy)] : []),
    ]),
  );
}
