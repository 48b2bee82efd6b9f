/**
 * The Journal contract, run against each adapter on its real database: what every storage must
 * guarantee, independent of the runtime on top.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { DATABASE_URL, describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { type JournalEvent, RunBusyError } from '../index';
import { PostgresStorage } from './index';
import { advisoryKey } from './postgres-storage';
import { query } from './sql-rows';

const input = { prompt: 'p', modelId: 'm', provider: 'x', toolNames: [] };
const note = (n: number): JournalEvent => ({ type: 'run-fail', error: { name: 'Note', message: String(n) } });

describeEachJournal('journal contract', (target) => {
  const { journal, storage } = target.open();

  it('is append-only: the database refuses to update, delete or truncate event rows', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.release();
    const db = await storage.database();
    for (const statement of [
      sql`update gnl.run_events set type = 'x' where run_id = ${runId}`,
      sql`delete from gnl.run_events where run_id = ${runId}`,
      sql`truncate gnl.run_events`,
    ]) {
      const error = await db.execute(statement).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      // drizzle wraps the driver's error; the database's own message is the cause.
      expect(String((error?.cause as Error | undefined)?.message)).toMatch(/append-only/);
    }
    expect(await journal.events(runId)).toHaveLength(1);
  });

  it('numbers events contiguously under concurrent appends, and the summary agrees with the events', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    const batches = await Promise.all(Array.from({ length: 40 }, (_, i) => hold.append(i % 3 === 0 ? [note(i), note(i + 100)] : [note(i)])));
    await hold.release();
    const seqs = batches.flat().map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    const events = await journal.events(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const run = await journal.getRun(runId);
    expect(run?.lastSeq).toBe(events.length);
    expect(run?.status).toBe('failed');
  });

  it('writes the summary in the same statement as the events (a step, a suspension, a completion)', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.append([{ type: 'model-step', step: 0, provider: 'x', modelId: 'm', latencyMs: 1, result: {} }]);
    const pending = [{ kind: 'approval' as const, toolCallId: 'c', toolName: 't', input: { a: '<b>' }, requestedAt: new Date().toISOString() }];
    await hold.append([{ type: 'run-suspend', status: 'waiting-approval', pending }]);
    expect(await journal.getRun(runId)).toMatchObject({ status: 'waiting-approval', stepCount: 1, lastSeq: 3, pending });
    await hold.append([
      { type: 'run-resume', fromStatus: 'waiting-approval' },
      { type: 'run-complete', text: 't', finishReason: 'stop', steps: 1 },
    ]);
    expect(await journal.getRun(runId)).toMatchObject({ status: 'completed', stepCount: 1, lastSeq: 5, pending: [] });
    await hold.release();
  });

  it('a released hold cannot append, and a held run cannot be held twice', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    const busy = await journal.hold(runId).catch((e: unknown) => e);
    expect(RunBusyError.isInstance(busy)).toBe(true);
    expect((busy as Error).name).toBe('RunBusyError');
    await hold.release();
    await expect(hold.append([note(1)])).rejects.toThrow(/released/);
    const again = await journal.hold(runId);
    await again.release();
  });

  it('reads events after a sequence number, in pages', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.append([note(1), note(2), note(3), note(4)]);
    await hold.release();
    expect((await journal.events(runId, { afterSeq: 2 })).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect((await journal.events(runId, { afterSeq: 1, limit: 2 })).map((e) => e.seq)).toEqual([2, 3]);
    expect(await journal.events(uniqueRunId('none'))).toEqual([]);
    await expect(journal.events(runId, { afterSeq: -1 })).rejects.toThrow(/afterSeq/);
  });

  it('lists runs newest first with a status filter and a cursor that pages without gaps or repeats', async () => {
    const tag = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const runId = `list:${tag}:${i}`;
      ids.push(runId);
      const hold = await journal.hold(runId);
      await hold.create(input);
      if (i % 2 === 0) await hold.append([{ type: 'run-complete', text: '', finishReason: 'stop', steps: 0 }]);
      await hold.release();
    }
    // Page through everything (other tests' runs are interleaved on the shared database): ours come newest first.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await journal.listRuns({ limit: 2, cursor });
      expect(page.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.runs.map((r) => r.runId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((id) => id.startsWith(`list:${tag}:`))).toEqual([...ids].reverse());

    const completed = await journal.listRuns({ status: 'completed', limit: 500 });
    expect(completed.runs.every((r) => r.status === 'completed')).toBe(true);
    expect(completed.runs.map((r) => r.runId)).toEqual(expect.arrayContaining([ids[0], ids[2], ids[4]]));
    expect(completed.runs.map((r) => r.runId)).not.toContain(ids[1]);

    await expect(journal.listRuns({ status: 'sleeping' as never })).rejects.toThrow(/status/);
    await expect(journal.listRuns({ cursor: 'garbage' })).rejects.toThrow(/cursor/);
    await expect(journal.listRuns({ limit: 0 })).rejects.toThrow(/limit/);
  });
});

describe.skipIf(!DATABASE_URL)(`Postgres holds and schema${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  it('a hold dies with its connection: an immediate hold elsewhere succeeds and the old holder cannot append', async () => {
    const a = new PostgresStorage({ connectionString: DATABASE_URL as string });
    const b = new PostgresStorage({ connectionString: DATABASE_URL as string });
    try {
      const runId = uniqueRunId();
      const hold = await a.runs.hold(runId);
      await hold.create(input);
      await expect(b.runs.hold(runId)).rejects.toMatchObject({ name: 'RunBusyError', message: expect.stringContaining('database session') });
      const db = await b.database();
      const [holder] = await query<{ pid: number }>(
        db,
        sql`select pid from pg_locks where locktype = 'advisory' and granted and ((classid::bigint << 32) | objid::bigint) = (${advisoryKey(runId)}::bigint)`,
      );
      expect(holder?.pid).toBeGreaterThan(0);
      // With a timeout, pg_terminate_backend waits until the backend is gone (and its locks with it).
      await db.execute(sql`select pg_terminate_backend(${holder?.pid}, 5000)`);
      const taken = await b.runs.hold(runId);
      await expect(hold.append([note(1)])).rejects.toMatchObject({ name: 'HoldLostError', runId });
      await taken.append([note(2)]);
      await taken.release();
      expect((await b.runs.events(runId)).map((e) => e.seq)).toEqual([1, 2]);
    } finally {
      await Promise.allSettled([a.close(), b.close()]);
    }
  });

  it('creates its schema on first use in an empty database, safely from two processes at once', async () => {
    const name = `gnl_migrate_${randomUUID().replaceAll('-', '')}`;
    const admin = postgres(DATABASE_URL as string, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    const url = new URL(DATABASE_URL as string);
    url.pathname = `/${name}`;
    const first = new PostgresStorage({ connectionString: url.toString() });
    const second = new PostgresStorage({ connectionString: url.toString() });
    try {
      await Promise.all([first.database(), second.database()]);
      const db = await first.database();
      const tags = await query<{ tag: string }>(db, sql`select tag from gnl_meta.migrations order by tag`);
      expect(tags.map((t) => t.tag)).toEqual(['0000_init', '0001_append_only_events', '0002_holder_token']);
      expect((await second.runs.listRuns()).runs).toEqual([]);
    } finally {
      await Promise.allSettled([first.close(), second.close()]);
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
