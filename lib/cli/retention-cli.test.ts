/**
 * `gnl retention run [--dry-run]` and `gnl retention log` as a real gnl process, on a temp embedded journal
 * and on a fresh Postgres database (the run drops the deployment's agents' runs: never on the shared one).
 * The deployment's `support` agent sets no retentionDays, so GNL_RETENTION_DAYS=2 applies; a run made to
 * have ended 3 days ago (its summary row's end moved back) is dropped, a recent one and a failed one kept.
 * With GNL_MEMORY_RETENTION_DAYS=2, a fact written 3 days ago is deleted and logged, a recent one kept.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '@/lib/durable';
import { PGliteStorage, PostgresStorage, type Storage } from '@/lib/durable/storage';
import type { DroppedMemory, RetentionLogEntry } from '@/lib/executor';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { gnl } from '@/tests/support/gnl-cli';
import { DATABASE_URL, tempDataDir, uniqueRunId } from '@/tests/support/journals';

const complete: JournalEvent = { type: 'run-complete', text: 'done', finishReason: 'stop', steps: 0 };
const fail: JournalEvent = { type: 'run-fail', error: { name: 'Boom', message: 'no' } };

async function makeRun(storage: Storage, last: JournalEvent, endedDaysAgo: number): Promise<string> {
  const runId = uniqueRunId('ret-cli');
  const hold = await storage.runs.hold(runId);
  await hold.create({ prompt: 'p', modelId: 'm', provider: 'x', toolNames: [], agent: 'support' });
  await hold.append([last]);
  await hold.release();
  const db = await storage.database();
  await db.execute(sql`update gnl.runs set updated_at = now() - make_interval(days => ${endedDaysAgo}) where run_id = ${runId}`);
  return runId;
}

async function exists(storage: Storage, runId: string): Promise<boolean> {
  const db = await storage.database();
  const result = (await db.execute(sql`select count(*) as n from gnl.run_events where run_id = ${runId}`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: { n: unknown }[] }).rows) as { n: unknown }[];
  return Number(rows[0]?.n) > 0;
}

const targets: { kind: 'pglite' | 'postgres'; available: boolean }[] = [
  { kind: 'pglite', available: true },
  { kind: 'postgres', available: Boolean(DATABASE_URL) },
];

for (const { kind, available } of targets) {
  (available ? describe : describe.skip)(`gnl retention [${kind}]${available ? '' : ' (skipped: DATABASE_URL is not set)'}`, { timeout: 180_000 }, () => {
    it('a dry run lists the expired run and drops nothing; run drops it and logs it; the log lists it; recent and failed runs stay', async () => {
      let env: Record<string, string>;
      let open: () => Storage;
      let drop: (() => Promise<void>) | undefined;
      if (kind === 'pglite') {
        const dataDir = tempDataDir();
        env = { GNL_DATA_DIR: dataDir, GNL_RETENTION_DAYS: '2', GNL_MEMORY_RETENTION_DAYS: '2' };
        open = () => new PGliteStorage({ dataDir });
      } else {
        const database = await createFreshDatabase(DATABASE_URL as string);
        drop = database.drop;
        env = { DATABASE_URL: database.url, GNL_RETENTION_DAYS: '2', GNL_MEMORY_RETENTION_DAYS: '2' };
        open = () => new PostgresStorage({ connectionString: database.url });
      }
      try {
        let storage = open();
        const old = await makeRun(storage, complete, 3);
        const recent = await makeRun(storage, complete, 1);
        const failed = await makeRun(storage, fail, 30);
        const resource = `customer:${uniqueRunId('ret-cli-mem')}`;
        await storage.memory.add({ resource, key: `${resource}-old`, items: [{ kind: 'fact', text: 'wrote three days ago' }] });
        await storage.memory.add({ resource, key: `${resource}-new`, items: [{ kind: 'fact', text: 'wrote today' }] });
        await (await storage.database()).execute(sql`update gnl.memory_items set created_at = now() - interval '3 days' where key = ${`${resource}-old`}`);
        await storage.close(); // one process at a time on the embedded journal

        const none = await gnl(['retention', 'run', '--dry-run'], { env: { ...env, GNL_RETENTION_DAYS: '', GNL_MEMORY_RETENTION_DAYS: '' } });
        expect(none.code, none.stderr).toBe(0);
        expect(none.stdout).toContain('No policy');
        expect(none.stdout).toContain('Memory: kept (GNL_MEMORY_RETENTION_DAYS is unset).');

        const dry = await gnl(['retention', 'run', '--dry-run', '--json'], { env });
        expect(dry.code, dry.stderr).toBe(0);
        const preview = JSON.parse(dry.stdout) as {
          dryRun: boolean;
          wouldDrop: { runId: string; policyDays: number }[];
          memory: { days: number; wouldTrim: string[] };
        };
        expect(preview.dryRun).toBe(true);
        expect(preview.memory).toEqual({ days: 2, wouldTrim: [resource] });
        expect(preview.wouldDrop.map((r) => r.runId)).toEqual([old]);
        expect(preview.wouldDrop[0]?.policyDays).toBe(2);
        const dryText = await gnl(['retention', 'run', '--dry-run'], { env });
        expect(dryText.stdout).toContain('Would drop 1 runs (dry run: nothing dropped):');
        expect(dryText.stdout).toContain(old);
        storage = open();
        expect(await exists(storage, old)).toBe(true);
        await storage.close();

        const ran = await gnl(['retention', 'run'], { env });
        expect(ran.code, ran.stderr).toBe(0);
        expect(ran.stdout).toContain('Dropped 1 runs:');
        expect(ran.stdout).toContain(old);
        expect(ran.stdout).toContain('Trimmed the memory of 1 resources:');
        expect(ran.stdout).toContain(resource);

        const memoryLog = await gnl(['retention', 'log', '--memory', '--json'], { env });
        expect(memoryLog.code, memoryLog.stderr).toBe(0);
        expect(JSON.parse(memoryLog.stdout) as DroppedMemory[]).toEqual([
          expect.objectContaining({ resource, items: 1, versions: 0, policyDays: 2, droppedBy: expect.stringMatching(/^cli:os:/) }),
        ]);

        const log = await gnl(['retention', 'log', '--json'], { env });
        expect(log.code, log.stderr).toBe(0);
        const entries = JSON.parse(log.stdout) as RetentionLogEntry[];
        expect(entries).toEqual([
          expect.objectContaining({
            runId: old,
            agent: 'support',
            status: 'completed',
            eventCount: 2,
            policyDays: 2,
            droppedBy: expect.stringMatching(/^cli:os:/),
          }),
        ]);
        expect((await gnl(['retention', 'log'], { env })).stdout).toContain(old);

        storage = open();
        expect(await exists(storage, old)).toBe(false);
        expect(await exists(storage, recent)).toBe(true);
        expect(await exists(storage, failed)).toBe(true);
        expect((await storage.memory.items({ resource, limit: 10 })).map((item) => item.text)).toEqual(['wrote today']);
        await storage.close();
      } finally {
        await drop?.();
      }
    });
  });
}
