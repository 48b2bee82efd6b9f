/**
 * The runs page's query on a real embedded journal (PGlite, migrations 0000-0006): filters, the three
 * kinds of search (both plans of the tool branch give the same runs), keyset pages that cover every
 * run once, tokens, and the lapsed lease.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent, RunInput } from '@/lib/durable';
import { PGliteStorage } from '@/lib/durable/storage';
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

let storage: PGliteStorage;
let db: SearchDb & { execute(statement: ReturnType<typeof sql>): Promise<unknown> };
const keys = new Map<string, string>();

const input = (agent: string, n: number): RunInput => ({
  agent,
  prompt: `order o_${n}`,
  modelId: 'm',
  provider: 'p',
  toolNames: ['lookupOrder', 'issueRefund'],
});

function events(runId: string, n: number): JournalEvent[] {
  const key = `gnl1a_key_of_${runId}`;
  keys.set(runId, key);
  const tool = n % 3 === 0 ? 'issueRefund' : 'lookupOrder';
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

const runIds: string[] = [];

beforeAll(async () => {
  storage = new PGliteStorage();
  db = (await storage.database()) as unknown as typeof db;
  for (let n = 0; n < 12; n++) {
    const runId = `search-${n % 2 === 0 ? 'even' : 'odd'}_${n}`;
    const hold = await storage.runs.hold(runId);
    await hold.create(input(n % 4 === 0 ? 'billing' : 'support', n));
    await hold.append(events(runId, n));
    if (n === 5) await hold.append([{ type: 'run-complete', text: 'done', finishReason: 'stop', steps: 2 }]);
    await hold.release();
    runIds.push(runId);
  }
  // run 7: queued, its executor's lease lapsed; run 9: leased and alive.
  await db.execute(sql`insert into gnl.run_queue (run_id, agent, lease_owner, last_lease_owner, lease_expires_at, heartbeat_at)
    values ('search-odd_7', 'support', 'host:1:a', 'host:1:a', now() - interval '1 minute', now() - interval '2 minutes'),
           ('search-odd_9', 'support', 'host:1:b', 'host:1:b', now() + interval '1 minute', now())`);
});

afterAll(async () => {
  await storage?.close();
});

const ids = (rows: RunSearchRow[]) => rows.map((r) => r.run_id);

describe('runs page query', () => {
  it('lists newest first, and keyset pages cover every run exactly once', async () => {
    const seen: string[] = [];
    let cursor: RunSearch['cursor'];
    for (let page = 0; page < 10; page++) {
      const rows = await searchRuns(db, { limit: 5, cursor });
      seen.push(...ids(rows.slice(0, 5)));
      if (rows.length <= 5) break;
      const last = rows[4] as RunSearchRow;
      cursor = { createdAt: last.created_at_text, runId: last.run_id };
    }
    expect(seen).toEqual([...runIds].reverse());
  });

  it('filters by status and by agent, together too', async () => {
    expect(ids(await searchRuns(db, { status: 'completed', limit: 50 }))).toEqual(['search-odd_5']);
    expect(ids(await searchRuns(db, { agent: 'billing', limit: 50 }))).toEqual(['search-even_8', 'search-even_4', 'search-even_0']);
    expect(ids(await searchRuns(db, { agent: 'billing', status: 'completed', limit: 50 }))).toEqual([]);
  });

  it('searches by run-id prefix (with % and _ taken literally)', async () => {
    expect(ids(await searchRuns(db, { q: 'search-odd_1', limit: 50 }))).toEqual(['search-odd_11', 'search-odd_1']);
    expect(ids(await searchRuns(db, { q: 'search-%', limit: 50 }))).toEqual([]);
    expect(likePrefix('a_b%c\\')).toBe('a\\_b\\%c\\\\%');
  });

  it('searches by tool name, the same runs whichever plan the count picks', async () => {
    const refunds = ['search-odd_9', 'search-even_6', 'search-odd_3', 'search-even_0'];
    expect(ids(await searchRuns(db, { q: 'issueRefund', limit: 50 }))).toEqual(refunds);
    const walk = await db.transaction(async (tx) => tx.execute(runSearchStatement({ q: 'issueRefund', limit: 50 }, FEW_TOOL_EVENTS + 1)));
    expect(ids((walk as { rows: RunSearchRow[] }).rows)).toEqual(refunds);
    expect(ids(await searchRuns(db, { q: 'issueRefund', agent: 'billing', limit: 50 }))).toEqual(['search-even_0']);
  });

  it('searches by idempotency key: the one run that holds it', async () => {
    expect(ids(await searchRuns(db, { q: keys.get('search-even_10') as string, limit: 50 }))).toEqual(['search-even_10']);
    expect(await searchRuns(db, { q: 'gnl1a_no_such_key', limit: 50 })).toEqual([]);
  });

  it('sums tokens over model steps, whatever shape the usage has', async () => {
    const [row] = await searchRuns(db, { q: 'search-odd_7', limit: 1 });
    expect(Number(row?.tokens)).toBe(100 + 7 + 5);
  });

  it('says a running run lapsed when its lease expired, not while it is leased', async () => {
    const rows = await searchRuns(db, { q: 'search-odd_', limit: 50 });
    const lapsed = (id: string) => rows.find((r) => r.run_id === id)?.lease_lapsed ?? null;
    expect(lapsed('search-odd_7')).toBe(true);
    expect(lapsed('search-odd_9')).toBeNull();
    expect(lapsed('search-odd_1')).toBeNull();
    expect(rows.find((r) => r.run_id === 'search-odd_7')?.last_lease_owner).toBe('host:1:a');
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
