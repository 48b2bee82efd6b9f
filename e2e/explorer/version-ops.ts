/**
 * The child's side of versions.ts: the operator's migrations, forks and restarts, made through the
 * executor's own migrateRun, forkRun and restartRun on the child's storage (its operator connection when racing a live process),
 * each logged with how the journal answered it. A refusal is an answer (the run was busy, finished, had
 * no such step), not a failure. Made before a resume, a migration is retried while the run is busy: the
 * killed holder's session may take a moment to end on the server, and an operator would try again.
 */
import type { AgentRegistry } from '@/lib/agents';
import { ForkRefusedError, type RecordedEvent, RunBusyError } from '@/lib/durable';
import type { Storage } from '@/lib/durable/storage';
import { forkRun, MigrationRefusedError, migrateRun, RunNotResumableError, restartRun } from '@/lib/executor';
import type { CommandVersionOp, LogEntry } from './protocol';
import { OPERATOR, type VersionName } from './versions';

const BUSY_RETRIES = 100;
const BUSY_WAIT_MS = 50;

export interface VersionOpContext {
  runId: string;
  storage: Storage;
  registry: AgentRegistry;
  versionOf: (name: VersionName) => string;
  write: (line: LogEntry) => void;
}

export async function makeVersionOp(op: CommandVersionOp, ctx: VersionOpContext, race: boolean): Promise<void> {
  const when = race ? 'racing the run' : 'while it is stopped';
  if (op.kind === 'migrate') {
    const version = ctx.versionOf(op.to);
    const reason = `explorer: migrate to ${op.to} ${when}`;
    const entry = { kind: 'version' as const, op: 'migrate' as const, race, reason, to: op.to, version, force: op.force };
    await answered(ctx, entry, race ? 1 : BUSY_RETRIES, () =>
      migrateRun(ctx.runId, { storage: ctx.storage, registry: ctx.registry, to: version, by: OPERATOR, reason, force: op.force }),
    );
    return;
  }
  if (op.kind === 'restart') {
    const reason = `explorer: restart ${when}`;
    const entry = { kind: 'version' as const, op: 'restart' as const, race, reason, parent: op.parent, childRunId: op.childRunId };
    await answered(ctx, entry, 1, () => restartRun(op.parent, { storage: ctx.storage, registry: ctx.registry, by: OPERATOR, runId: op.childRunId }));
    return;
  }
  const steps = (await ctx.storage.runs.events(op.parent)).filter((e: RecordedEvent) => e.type === 'model-step').length;
  const atStep = 1 + Math.floor(op.fraction * steps);
  const reason = `explorer: fork at step ${atStep} ${when}`;
  const entry = {
    kind: 'version' as const,
    op: 'fork' as const,
    race,
    reason,
    parent: op.parent,
    childRunId: op.childRunId,
    atStep,
    ...(op.instruction ? { instruction: op.instruction } : {}),
  };
  await answered(ctx, entry, 1, () =>
    forkRun({
      storage: ctx.storage,
      registry: ctx.registry,
      runId: op.parent,
      atStep,
      by: OPERATOR,
      reason,
      newRunId: op.childRunId,
      ...(op.instruction ? { edit: { instruction: op.instruction } } : {}),
    }),
  );
}

type VersionEntry = Omit<Extract<LogEntry, { kind: 'version' }>, 'result' | 'detail'>;

async function answered(ctx: VersionOpContext, entry: VersionEntry, tries: number, request: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await request();
      ctx.write({ ...entry, result: 'accepted' });
      return;
    } catch (error) {
      if (RunBusyError.isInstance(error) && attempt < tries) {
        await new Promise((resolve) => setTimeout(resolve, BUSY_WAIT_MS));
        continue;
      }
      // Refusals are answers; anything else (a journal that failed, a bug) fails the child: a violation.
      const refusal =
        RunBusyError.isInstance(error) ||
        MigrationRefusedError.isInstance(error) ||
        ForkRefusedError.isInstance(error) ||
        RunNotResumableError.isInstance(error);
      if (!refusal) throw error;
      const name = (error as Error).name;
      ctx.write({ ...entry, result: 'refused', detail: `${name}: ${(error as Error).message}` });
      return;
    }
  }
}
