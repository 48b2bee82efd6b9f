/**
 * The Overview page's read on both real journals (PGlite; the shared Postgres when DATABASE_URL is set,
 * so every run here belongs to an agent no other run has, and each read is scoped to it). The runs are
 * written as rows with chosen instants (an insert, which the append-only journal allows), so the decision
 * times and the days are known exactly.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { costText } from '@/lib/cost';
import { loadPriceTable } from '@/lib/cost/price-file';
import { describeEachJournal } from '@/tests/support/journals';
import { type OverviewDb, readOverview } from './overview';
import { daysBetween, pivotByDay, waitingSince } from './overview-shape';

// The real clock, but never in the first two hours of a UTC day: runs are written up to 24 hours and 53
// minutes before NOW and read back by UTC day (at 00:01 a step 2 minutes before NOW is on yesterday's).
const NOW = ((real: Date) => (real.getUTCHours() >= 2 ? real : new Date(real.getTime() - (real.getUTCHours() + 1) * 3_600_000)))(new Date());
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
const today = NOW.toISOString().slice(0, 10);
const usage = { inputTokens: { total: 100 }, outputTokens: { total: 20 } };
type Ev = [type: string, payload: object, at: string];

describeEachJournal('overview read', (target) => {
  const { storage } = target.open();
  const agent = `ov-${randomUUID().slice(0, 8)}`;
  let db: OverviewDb;

  async function run(name: string, status: string, events: Ev[], pending: object[] = []) {
    const runId = `${agent}:${name}`;
    const input = { agent, prompt: name, modelId: 'm', provider: 'p', toolNames: [] };
    await db.execute(sql`insert into gnl.runs (run_id, status, last_seq, input, pending, created_at, updated_at)
      values (${runId}, ${status}, ${events.length}, ${JSON.stringify(input)}::jsonb, ${JSON.stringify(pending)}::jsonb, ${events[0]?.[2]}::timestamptz, ${events.at(-1)?.[2]}::timestamptz)`);
    for (const [i, [type, payload, at]] of events.entries()) {
      await db.execute(
        sql`insert into gnl.run_events (run_id, seq, type, payload, created_at) values (${runId}, ${i + 1}, ${type}, ${JSON.stringify({ type, ...payload })}::jsonb, ${at}::timestamptz)`,
      );
    }
  }
  const approval = (name: string, waitMinutes: number, extra: object = {}): Ev[] => [
    ['run-start', {}, ago(waitMinutes + 3)],
    ['model-step', { step: 0, latencyMs: 1, result: { usage } }, ago(waitMinutes + 2)],
    ['tool-approval-request', { toolCallId: `c-${name}`, toolName: 'refund' }, ago(waitMinutes + 1)],
    ['run-suspend', { status: 'waiting-approval', pending: [] }, ago(waitMinutes + 1)],
    ['tool-approval-response', { toolCallId: `c-${name}`, approved: true, by: 'alice', ...extra }, ago(1)],
  ];

  beforeAll(async () => {
    db = (await storage.database()) as unknown as OverviewDb;
    await run('a', 'completed', approval('a', 0.5)); // 30 s
    await run('b', 'completed', approval('b', 1)); // 60 s
    await run('c', 'completed', approval('c', 2)); // 120 s
    await run('policy', 'completed', approval('policy', 50, { policy: { toolName: 'refund', input: {} } })); // a policy's: not a person's
    await run('settled', 'running', [
      ['run-start', {}, ago(20)],
      ['run-suspend', { status: 'blocked', pending: [] }, ago(11)],
      ['side-effect-resolution', { toolCallId: 'c', outcome: 'not-done', by: 'bob' }, ago(1)], // 600 s
    ]);
    await run(
      'waiting',
      'waiting-approval',
      [['run-start', {}, ago(30)]],
      [{ kind: 'approval', toolCallId: 'w', toolName: 'issueRefund', input: {}, requestedAt: ago(29) }],
    );
    await run('old', 'failed', [['run-start', {}, ago(60 * 24 * 30)]]); // before the window
  });

  it('decision times: median and p90 over the people’s decisions only', async () => {
    const overview = await readOverview(db, { days: 7, agent, now: NOW });
    expect(overview.decisions.count).toBe(4);
    expect(overview.decisions.medianS).toBeCloseTo(90, 3);
    expect(overview.decisions.p90S).toBeCloseTo(120 + 0.7 * 480, 3);
  });

  it('runs by status per day, tokens per agent per day, and the oldest waiting item', async () => {
    const overview = await readOverview(db, { days: 7, agent, now: NOW });
    expect(overview.statusByDay).toHaveLength(7);
    const sum = (status: string) => overview.statusByDay.reduce((n, row) => n + Number(row[status] ?? 0), 0);
    expect(overview.statuses).toEqual(['completed', 'running', 'waiting-approval']);
    expect([sum('completed'), sum('running'), sum('waiting-approval'), sum('failed')]).toEqual([4, 1, 1, 0]);
    expect(overview.agents).toEqual([agent]);
    const tokens = overview.tokensByDay.reduce((n, row) => n + Number(row[agent] ?? 0), 0);
    expect(tokens).toBe(4 * 120);
    expect(overview.tokensByDay.at(-1)?.day).toBe(today);
    expect(overview.oldestWaiting).toEqual({
      runId: `${agent}:waiting`,
      status: 'waiting-approval',
      agent,
      since: ago(29),
      item: { kind: 'approval', toolName: 'issueRefund' },
    });
  });

  it('cost per agent per day: priced steps by their model, the scripted demo model named as unpriced, never $0', async () => {
    const costAgent = `${agent}-cost`;
    const at = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();
    const mini = {
      provider: 'openai.responses',
      modelId: 'gpt-4o-mini',
      latencyMs: 1,
      result: { usage: { inputTokens: { total: 1200, noCache: 1000, cacheRead: 200 }, outputTokens: { total: 300 } } },
    };
    const demo = { provider: 'gnl-demo', modelId: 'scripted-support-v1', latencyMs: 1, result: { usage } };
    const insert = async (name: string, events: Ev[]) => {
      const runId = `${costAgent}:${name}`;
      const input = { agent: costAgent, prompt: name, modelId: 'm', provider: 'p', toolNames: [] };
      await db.execute(sql`insert into gnl.runs (run_id, status, last_seq, input, pending, created_at, updated_at)
        values (${runId}, 'completed', ${events.length}, ${JSON.stringify(input)}::jsonb, '[]'::jsonb, ${events[0]?.[2]}::timestamptz, ${events.at(-1)?.[2]}::timestamptz)`);
      for (const [i, [type, payload, when]] of events.entries())
        await db.execute(sql`insert into gnl.run_events (run_id, seq, type, payload, created_at)
          values (${runId}, ${i + 1}, ${type}, ${JSON.stringify({ type, ...payload })}::jsonb, ${when}::timestamptz)`);
    };
    // One run across two UTC days (a step 24 hours ago is on yesterday's), one on the scripted model today.
    await insert('x', [
      ['model-step', { step: 0, ...mini }, at(24 * 60)],
      ['model-step', { step: 1, ...mini }, at(2)],
    ]);
    await insert('y', [['model-step', { step: 0, ...demo }, at(1)]]);
    const overview = await readOverview(db, { days: 7, agent: costAgent, now: NOW, prices: loadPriceTable({}) });
    // 1000 × $0.15 + 200 × $0.075 + 300 × $0.60 per million tokens, a step.
    expect(overview.costByDay.slice(-2)).toEqual([
      { day: daysBetween(new Date(at(24 * 60)), new Date(at(24 * 60)))[0], [costAgent]: 0.000345 },
      { day: today, [costAgent]: 0.000345 },
    ]);
    expect(overview.costByAgent).toEqual([
      {
        agent: costAgent,
        cost: {
          picoUsd: 690_000_000,
          pricedSteps: 2,
          unpricedSteps: 1,
          unpriced: [{ provider: 'gnl-demo', modelId: 'scripted-support-v1', steps: 1, reason: 'no-price' }],
          takenOn: ['2025-06-01'],
        },
      },
    ]);
    expect(costText(overview.cost)).toBe('≥ $0.000690 (1 step unpriced)');
    expect(overview.pricesProblem).toBeNull();
  });

  it('an agent with no runs: empty days, no decisions, nothing waiting', async () => {
    const overview = await readOverview(db, { days: 3, agent: `${agent}-none`, now: NOW });
    expect(overview.statusByDay.map((row) => Object.keys(row))).toEqual([['day'], ['day'], ['day']]);
    expect(overview.decisions).toEqual({ count: 0, medianS: null, p90S: null });
    expect(overview.oldestWaiting).toBeNull();
  });
});

describe('overview shapes', () => {
  it('days are UTC days, both ends included; pivoted rows fill missing series with 0', () => {
    expect(daysBetween(new Date('2026-01-30T00:00:00Z'), new Date('2026-02-01T23:00:00Z'))).toEqual(['2026-01-30', '2026-01-31', '2026-02-01']);
    const { names, rows } = pivotByDay(
      [
        { day: '2026-01-30', s: 'b', n: 2 },
        { day: '2026-01-31', s: 'a', n: 1 },
        { day: '2025-12-01', s: 'c', n: 9 },
      ],
      ['2026-01-30', '2026-01-31'],
      (r) => r.s,
      (r) => r.n,
    );
    expect(names).toEqual(['a', 'b', 'c']);
    expect(rows).toEqual([
      { day: '2026-01-30', a: 0, b: 2, c: 0 },
      { day: '2026-01-31', a: 1, b: 0, c: 0 },
    ]);
  });

  it('a waiting run waits since its oldest undecided item', () => {
    const approval = { kind: 'approval', toolCallId: 'x', toolName: 't', input: {}, requestedAt: '2026-01-02T00:00:00Z' } as const;
    const decided = { ...approval, requestedAt: '2026-01-01T00:00:00Z', decision: { outcome: 'approved', by: 'a', at: 'x' } } as const;
    expect(waitingSince([approval, decided], 'fallback').since).toBe('2026-01-02T00:00:00Z');
    expect(waitingSince([], 'fallback')).toEqual({ since: 'fallback' });
  });
});
