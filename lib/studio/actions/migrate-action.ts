/**
 * Migrating a run from the Studio: one call of the executor layer's migrateRun with this deployment's
 * registry, in the signed-in operator's name, with their reason. The preview the operator confirmed is
 * planned again under the run's hold (a decision that landed since is seen); a refusal (unsafe without
 * force, a finished run, a run executing elsewhere) is a result the page shows, never thrown.
 * Server-only; the server action in app/(studio)/actions.ts authenticates and parses first.
 */
import 'server-only';
import { registry } from '@/agents';
import { AgentInputError } from '@/lib/agents';
import { RunBusyError } from '@/lib/durable';
import { MigrationRefusedError, migrateRun } from '@/lib/executor';
import type { ActionResult } from './operator-actions';

export async function migrate(request: {
  runId: string;
  to: string;
  reason: string;
  force: boolean;
  by: string;
}): Promise<ActionResult<{ seq: number; to: string }>> {
  const { runId, to, reason, force, by } = request;
  try {
    const migrated = await migrateRun(runId, { registry, to, by, reason, force });
    return { ok: true, seq: migrated.event.seq, to: migrated.preview.to };
  } catch (error) {
    if (MigrationRefusedError.isInstance(error) || RunBusyError.isInstance(error)) return { ok: false, kind: 'not-resumable', message: error.message };
    if (AgentInputError.isInstance(error)) return { ok: false, kind: 'invalid', message: error.message };
    console.error('studio: migrate failed:', error);
    return { ok: false, kind: 'error', message: 'The journal could not record the migration; the Studio’s server log says why.' };
  }
}
