/**
 * A run recorded by a GNL from before the runId rule (lib/durable/identity/run-id.ts normalizeRunId):
 * its run-start written under the id exactly as given, past the journal's own check, through the same
 * statement the journal creates runs with. Such runs exist in journals written by older versions (and in
 * their exports); the journal finds and continues them by the id as recorded (resolveRunId), and every
 * reader must still show their hidden characters. Embedded journal only (the seeds that need it are).
 */
import type { RunInput } from '@/lib/durable';
import type { PGliteStorage } from '@/lib/durable/storage';
import { createRun } from '@/lib/durable/storage/event-rows';
import { pgliteDriver } from '@/lib/durable/storage/sql-driver';

export async function recordRunBeforeTheRule(storage: PGliteStorage, runId: string, input: RunInput): Promise<void> {
  await storage.database();
  await createRun(pgliteDriver(await storage.pglite()), runId, input, { notifyInStatement: false });
}
