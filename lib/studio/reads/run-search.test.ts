/**
 * The runs page's query on both real journals (PGlite; the shared Postgres when DATABASE_URL is set, so
 * every run id, agent and tool name here is unique to this run and each check is scoped by them):
 * filters, the three kinds of search (both plans of the tool branch give the same runs), keyset pages
 * that cover every run once, tokens, and the lapsed lease (on Postgres: the advisory lock of a live
 * holder keeps a run from being called lapsed).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import type { JournalEvent, RunInput } from '@/lib/durable';
import { describeEachJournal } from '@/tests/support/journals';
import {
  decodeRunCursor,
  encodeRunCursor,
  FEW_TOOL_EVENTS,
  likePrefix,
  type RunSearch,
  type RunSearchRow,
  runSearchStatement,
  type SearchDb,
  searchRuns,
} from './run-search';

const U = randomUUID().slice(0, 8);
/** Every run id of this suite starts with it: no other run, here or on the shared server, does. */
const P = `s${U}-`;
const AGENT = { billing: `billing-${U}`, support: `support-${U}` };
const TOOL = { refund: `issueRefund${U}`, lookup: `lookupOrder${U}` };
const id = (n: number) => `${P}${n % 2 === 0 ? 'even' : 'odd'}_${n}`;

const input = (agent: string, n: number): RunInput => ({ agent, prompt: `order o_${n}`, modelId: 'm', provider: 'p', toolNames: Object.values(TOOL) });

function events(runId: string, n: number): JournalEvent[] {
  const key = `gnl1a_key_of_${runId}`;
  const tool = n % 3 === 0 ? TOOL.refund : TOOL.lookup;
  return [
    {
      type: 'model-step',
      step: 0,
      provider: 'p',
      modelId: 'm',
      latencyMs: 1,
      result: { content: [], finishReason: { unified: 'tool-calls' }, usage: { inputTokens: { total: 100 }, outputTokens: { total: n } } },
    },
    { type: 'tool-call-start', toolCallId: 'c1', toolName: tool, input: { orderId: `o_${n}` }, idempotencyKey: key, attempt: 1, sideEffect: true },
    { type: 'tool-call-end', toolCallId: 'c1', toolName: tool, idempotencyKey: key, attempt: 1, output: { ok: true }, durationMs: 3, source: 'executed' },
    // An older usage shape (plain numbers) and one a provider left out: both count, neither breaks the sum.
    { type: 'model-step', step: 1, provider: 'p', modelId: 'm', latencyMs: 1, result: { content: [], usage: { inputTokens: 5, outputTokens: 'n/a' } } },
  ];
}

const ids = (rows: RunSearchRow[]) => rows.map((r) => r.run_id);
type Db = SearchDb & { execute(statement: ReturnType<typeof sql>): Promise<unknown> };
const rowsOf = (result: unknown) => (Array.isArray(result) ? result : (result as { rows: RunSearchRow[] }).rows) as RunSearchRow[];

describeEachJournal('runs page query', (target) => {
  const { storage } = target.open();
  let db: Db;
  const runIds: string[] = [];

  beforeAll(async () => {
    db = (await storage.database()) as unknown as Db;
    for (let n = 0; n < 12; n++) {
      const hold = await storage.runs.hold(id(n));
      await hold.create(input(n % 4 === 0 ? AGENT.billing : AGENT.support, n));
      await hold.append(events(id(n), n));
      if (n === 5) await hold.append([{ type: 'run-complete', text: 'done', finishReason: 'stop', steps: 2 }]);
      await hold.release();
      runIds.push(id(n));
    }
    // run 7: queued, its executor's lease lapsed; run 9: leased and alive.
    await db.execute(sql`insert into gnl.run_queue (run_id, agent, lease_owner, last_lease_owner, lease_expires_at, heartbeat_at)
      values (${id(7)}, ${AGENT.support}, 'host:1:a', 'host:1:a', now() - interval '1 minute', now() - interval '2 minutes'),
             (${id(9)}, ${AGENT.support}, 'host:1:b', 'host:1:b', now() + interval '1 minute', now())`);
  }, 120_000);

  it('lists newest first, and keyset pages cover every run exactly once', async () => {
    const seen: string[] = [];
    let cursor: RunSearch['cursor'];
    for (let page = 0; page < 10; page++) {
      const rows = await searchRuns(db, { q: P, limit: 5, cursor });
      seen.push(...ids(rows.slice(0, 5)));
      if (rows.length <= 5) break;
      const last = rows[4] as RunSearchRow;
      cursor = { createdAt: last.created_at_text, runId: last.run_id };
    }
    expect(seen).toEqual([...runIds].reverse());
    // A page is `limit` runs plus one that says a next page exists (here there are at least twelve runs).
    expect((await searchRuns(db, { limit: 1 })).length).toBe(2);
  });

  it('filters by status and by agent, together too', async () => {
    expect(ids(await searchRuns(db, { q: P, status: 'completed', limit: 50 }))).toEqual([id(5)]);
    expect(ids(await searchRuns(db, { agent: AGENT.billing, limit: 50 }))).toEqual([id(8), id(4), id(0)]);
    expect(ids(await searchRuns(db, { agent: AGENT.billing, status: 'completed', limit: 50 }))).toEqual([]);
  });

  it('searches by run-id prefix (with % and _ taken literally)', async () => {
    expect(ids(await searchRuns(db, { q: `${P}odd_1`, limit: 50 }))).toEqual([id(11), id(1)]);
    expect(ids(await searchRuns(db, { q: `${P}%`, limit: 50 }))).toEqual([]);
    expect(likePrefix('a_b%c\\')).toBe('a\\_b\\%c\\\\%');
  });

  it('searches by tool name, the same runs whichever plan the count picks', async () => {
    const refunds = [id(9), id(6), id(3), id(0)];
    expect(ids(await searchRuns(db, { q: TOOL.refund, limit: 50 }))).toEqual(refunds);
    const walk = await db.transaction(async (tx) => tx.execute(runSearchStatement({ q: TOOL.refund, limit: 50 }, FEW_TOOL_EVENTS + 1)));
    expect(ids(rowsOf(walk))).toEqual(refunds);
    expect(ids(await searchRuns(db, { q: TOOL.refund, agent: AGENT.billing, limit: 50 }))).toEqual([id(0)]);
  });

  it('searches by idempotency key: the one run that holds it', async () => {
    expect(ids(await searchRuns(db, { q: `gnl1a_key_of_${id(10)}`, limit: 50 }))).toEqual([id(10)]);
    expect(await searchRuns(db, { q: `gnl1a_no_such_key_${U}`, limit: 50 })).toEqual([]);
  });

  it('sums tokens over model steps, whatever shape the usage has', async () => {
    const [row] = await searchRuns(db, { q: id(7), limit: 1 });
    expect(Number(row?.tokens)).toBe(100 + 7 + 5);
  });

  it('says a running run lapsed when its lease expired, not while it is leased', async () => {
    const rows = await searchRuns(db, { q: `${P}odd_`, limit: 50 });
    const lapsed = (runId: string) => rows.find((r) => r.run_id === runId)?.lease_lapsed ?? null;
    expect(lapsed(id(7))).toBe(true);
    expect(lapsed(id(9))).toBeNull();
    expect(lapsed(id(1))).toBeNull();
    expect(rows.find((r) => r.run_id === id(7))?.last_lease_owner).toBe('host:1:a');
  });

  it(`a held run whose lease expired: ${target.name === 'postgres' ? 'its live holder (advisory lock) keeps it from lapsing' : 'the embedded journal holds runs in-process, so an expired lease is all it can see'}`, async () => {
    await db.execute(sql`insert into gnl.run_queue (run_id, agent, lease_owner, last_lease_owner, lease_expires_at, heartbeat_at)
      values (${id(11)}, ${AGENT.support}, 'host:2:c', 'host:2:c', now() - interval '1 minute', now() - interval '2 minutes')`);
    const hold = await storage.runs.hold(id(11));
    try {
      const [held] = await searchRuns(db, { q: id(11), limit: 1 });
      expect(held?.lease_lapsed).toBe(target.name !== 'postgres');
    } finally {
      await hold.release();
    }
    const [released] = await searchRuns(db, { q: id(11), limit: 1 });
    expect(released?.lease_lapsed).toBe(true);
  });

  it('refuses bad input and cursors it did not give out', () => {
    expect(() => runSearchStatement({ limit: 0 })).toThrow();
    expect(() => runSearchStatement({ q: 'x'.repeat(201), limit: 5 })).toThrow();
    expect(decodeRunCursor('not-a-cursor')).toBeUndefined();
    expect(decodeRunCursor(Buffer.from('["yesterday","r"]').toString('base64url'))).toBeUndefined();
    const cursor = { createdAt: '2026-11-29 22:51:23.123456+00', runId: 'r' };
    expect(decodeRunCursor(encodeRunCursor(cursor))).toEqual(cursor);
  });
});
