/**
 * Memory retention on both real journals (memory-retention.ts): facts, messages and working memory
 * versions written before GNL_MEMORY_RETENTION_DAYS are deleted, never a resource's newest working
 * memory, one gnl.memory_retention_log row per resource (append-only), through the scheduled pass too.
 * Ages are made by moving this suite's own rows 40 days back (raw SQL): the Postgres server is shared, so
 * only this suite's resources are compared, and nothing else there is that old.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { createAgentRegistry } from '@/lib/agents';
import type { Storage } from '@/lib/durable/storage';
import { describeEachJournal } from '@/tests/support/journals';
import { refusal } from '@/tests/support/refusal';
import { Executor } from '../executor';
import { dropExpiredMemory, findExpiredMemory, memoryRetentionLog } from './memory-retention';
import { retentionSettingsFromEnv } from './retention-policy';

async function rows<T>(storage: Storage, statement: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await (await storage.database()).execute(statement)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

describeEachJournal('memory retention', (target) => {
  const { storage } = target.open();
  const tag = randomUUID().slice(0, 8);
  const memory = () => storage.memory;

  /** Moves the resource's rows written under `key` 40 days back. */
  async function age(resource: string, key: string): Promise<void> {
    await rows(storage, sql`update gnl.memory_items set created_at = now() - interval '40 days' where resource = ${resource} and key = ${key}`);
    await rows(storage, sql`update gnl.working_memory set created_at = now() - interval '40 days' where resource = ${resource} and key = ${key}`);
  }

  async function counts(resource: string): Promise<{ items: number; versions: number }> {
    const [row] = await rows<{ items: number | string; versions: number | string }>(
      storage,
      sql`select (select count(*) from gnl.memory_items where resource = ${resource}) as items,
            (select count(*) from gnl.working_memory where resource = ${resource}) as versions`,
    );
    return { items: Number(row?.items), versions: Number(row?.versions) };
  }

  it('deletes what is older than the setting, keeps the newest working memory and what is recent, and logs each resource once', async () => {
    const [old, fresh, lone] = ['old', 'fresh', 'lone'].map((name) => `customer:${name}-${tag}`) as [string, string, string];
    await memory().add({
      resource: old,
      key: `${old}-facts`,
      items: [
        { kind: 'fact', text: 'prefers email' },
        { kind: 'fact', text: 'VIP since 2019' },
      ],
    });
    await memory().add({ resource: old, key: `${old}-turn`, items: [{ kind: 'message', thread: 't1', role: 'user', text: 'where is my refund?' }] });
    await memory().add({ resource: old, key: `${old}-recent`, items: [{ kind: 'fact', text: 'moved to Lyon' }] });
    for (const [version, nickname] of ['Ann', 'Annie', 'Anne'].entries())
      await memory().writeWorking({ resource: old, expectedVersion: version, value: { nickname }, by: 'agent', key: `${old}-w${version}` });
    await memory().add({ resource: fresh, key: `${fresh}-facts`, items: [{ kind: 'fact', text: 'new customer' }] });
    await memory().writeWorking({ resource: lone, expectedVersion: 0, value: { nickname: 'Lo' }, by: 'agent', key: `${lone}-w0` });
    for (const key of [`${old}-facts`, `${old}-turn`, `${old}-w0`, `${old}-w1`, `${old}-w2`]) await age(old, key);
    await age(lone, `${lone}-w0`);

    // The dry run names the resource and writes nothing; the one whose only (newest) version is old is not named.
    const found = await findExpiredMemory({ storage, days: 30, batchSize: 10_000 });
    expect(found.resources.filter((r) => r.endsWith(tag))).toEqual([old]);
    expect(await counts(old)).toEqual({ items: 4, versions: 3 });

    const dropped = [];
    for (let olderThan: Date | undefined; ; ) {
      const batch = await dropExpiredMemory({ storage, days: 30, droppedBy: 'test', batchSize: 1, ...(olderThan ? { olderThan } : {}) });
      olderThan = batch.olderThan;
      dropped.push(...batch.dropped);
      if (!batch.more) break;
    }
    const mine = dropped.filter((d) => d.resource.endsWith(tag));
    expect(mine).toEqual([expect.objectContaining({ resource: old, items: 3, versions: 2, policyDays: 30, droppedBy: 'test' })]);
    expect(mine[0]?.bytes).toBeGreaterThan('prefers email'.length + 'VIP since 2019'.length);
    expect(await counts(old)).toEqual({ items: 1, versions: 1 });
    expect((await memory().items({ resource: old, limit: 10 })).map((i) => i.text)).toEqual(['moved to Lyon']);
    expect(await memory().working(old)).toMatchObject({ version: 3, value: { nickname: 'Anne' } });
    expect(await memory().history({ resource: old, thread: 't1', limit: 10 })).toEqual([]);
    expect(await counts(fresh)).toEqual({ items: 1, versions: 0 });
    expect(await counts(lone)).toEqual({ items: 0, versions: 1 });
    // A second pass finds nothing of this suite's.
    const again = await dropExpiredMemory({ storage, days: 30, droppedBy: 'test' });
    expect(again.dropped.filter((d) => d.resource.endsWith(tag))).toEqual([]);
    // The newest version still takes a versioned write; then the old one is history, and the next pass takes it.
    expect(await memory().writeWorking({ resource: old, expectedVersion: 3, value: { nickname: 'Anna' }, by: 'agent', key: `${old}-w3` })).toMatchObject({
      ok: true,
      version: 4,
    });
    const third = await dropExpiredMemory({ storage, days: 30, droppedBy: 'test' });
    expect(third.dropped.filter((d) => d.resource.endsWith(tag))).toEqual([expect.objectContaining({ resource: old, items: 0, versions: 1 })]);
    expect(await memory().working(old)).toMatchObject({ version: 4, value: { nickname: 'Anna' } });
    // The log: one row per resource per pass that took something, newest first; it refuses changes.
    const log = await memoryRetentionLog({ storage, resource: old });
    expect(log).toEqual([
      expect.objectContaining({ resource: old, items: 0, versions: 1 }),
      expect.objectContaining({ resource: old, items: 3, versions: 2, policyDays: 30, droppedBy: 'test' }),
    ]);
    expect(log[1]?.olderThan.getTime()).toBe(mine[0]?.olderThan.getTime());
    const db = await storage.database();
    expect(await refusal(db.execute(sql`update gnl.memory_retention_log set items = 0 where resource = ${old}`))).toMatch(/append-only/);
    expect(await refusal(db.execute(sql`delete from gnl.memory_retention_log where resource = ${old}`))).toMatch(/append-only/);
  });

  it('the scheduled pass trims memory when GNL_MEMORY_RETENTION_DAYS is set, with no run policy at all, and reports it', async () => {
    const resource = `customer:pass-${tag}`;
    await memory().add({ resource, key: `${resource}-facts`, items: [{ kind: 'fact', text: 'likes mornings' }] });
    await age(resource, `${resource}-facts`);
    const settings = retentionSettingsFromEnv({ GNL_MEMORY_RETENTION_DAYS: '30' });
    expect(settings).toEqual({ memoryDays: 30 });
    const events: unknown[] = [];
    const executor = new Executor({ storage, registry: createAgentRegistry([]), notify: false, retention: settings, onEvent: (event) => events.push(event) });
    const report = await executor.retentionPass({ force: true });
    expect(report?.memory.resources).toBeGreaterThanOrEqual(1);
    expect(report?.memory.items).toBeGreaterThanOrEqual(1);
    expect(await counts(resource)).toEqual({ items: 0, versions: 0 });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'retention-pass', memory: expect.objectContaining({ resources: report?.memory.resources }) }),
    );
    expect(await memoryRetentionLog({ storage, resource })).toEqual([expect.objectContaining({ resource, items: 1, versions: 0, policyDays: 30 })]);
  });
});

it("GNL_MEMORY_RETENTION_DAYS: days or 'forever'; anything else stops the start naming it", () => {
  expect(retentionSettingsFromEnv({ GNL_MEMORY_RETENTION_DAYS: '90' })).toEqual({ memoryDays: 90 });
  expect(retentionSettingsFromEnv({ GNL_MEMORY_RETENTION_DAYS: 'forever' })).toEqual({});
  for (const bad of ['0', '2.5', 'soon', '36501'])
    expect(() => retentionSettingsFromEnv({ GNL_MEMORY_RETENTION_DAYS: bad })).toThrow(
      expect.objectContaining({ name: 'RetentionSettingsError', setting: 'GNL_MEMORY_RETENTION_DAYS' }),
    );
});
