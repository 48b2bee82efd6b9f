/**
 * Property tests over the real journal (PGlite, and Postgres with DATABASE_URL): random payloads go in
 * through a run's hold and the operator API, and each value either comes back deep-equal or is refused
 * with a named error before anything is written (row count, last_seq, status and pending unchanged; a
 * refused batch leaves no half of it). The value classes and what happens to each: json-codec.ts.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { query } from '@/lib/durable/storage/sql-rows';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { JournalDataError, type JournalEvent, MAX_EVENT_BYTES, MAX_JSON_DEPTH, type PendingItem, type RunHold, type RunInput } from '../index';

const input: RunInput = { prompt: 'property', modelId: 'm', provider: 'p', toolNames: ['t'] };
const NUM_RUNS = 90;

/** Text as a tool or a model can produce it, and worse: any code point, NUL, lone surrogate halves. */
const char = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constant('\u0000') },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)) },
);
const text = fc.string({ unit: char, maxLength: 12 });

/** Every value class the journal keeps (json-codec.ts): JSON, Date, bytes and typed arrays, Map, Set, bigint, undefined, non-finite and -0. */
const storable = fc.anything({
  key: fc.oneof(text, fc.constantFrom('$gnl', '__proto__', 'v')),
  values: [
    text,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.date({ noInvalidDate: true }),
    fc.uint8Array({ maxLength: 8 }),
  ],
  maxDepth: 4,
  maxKeys: 4,
  withBigInt: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withTypedArray: true,
  withSparseArray: true,
  withNullPrototype: true,
});

type Poison = { kind: 'function' | 'symbol' | 'cycle' | 'depth'; make(): unknown };
const poisons: Poison[] = [
  { kind: 'function', make: () => () => 'side effect' },
  { kind: 'symbol', make: () => Symbol('s') },
  {
    kind: 'cycle',
    make: () => {
      const node: Record<string, unknown> = { name: 'node' };
      node.self = { back: node };
      return node;
    },
  },
  { kind: 'depth', make: () => nest(MAX_JSON_DEPTH + 1) },
];
const messageOf: Record<Poison['kind'], RegExp> = {
  function: /is a function/,
  symbol: /is a symbol/,
  cycle: /refers back to itself \(a cycle\)/,
  depth: /nested deeper than 1000 levels \(MAX_JSON_DEPTH\)/,
};

/** A storable value with something the journal refuses planted at a random path inside it. */
const poisoned = fc
  .record({ around: storable, poison: fc.constantFrom(...poisons), path: fc.array(fc.oneof(text, fc.nat({ max: 3 })), { maxLength: 4 }) })
  .map(({ around, poison, path }) => {
    let value: unknown = poison.make();
    for (const key of [...path].reverse()) value = typeof key === 'number' ? Object.assign(new Array(key + 1).fill(0), { [key]: value }) : { [key]: value };
    return { kind: poison.kind, value: { around, inner: value } };
  });

/**
 * Compares two nestings of one-entry Maps and Sets level by level, in a loop: vitest's toEqual recurses
 * through Maps and Sets with several frames a level and can run out of stack at 1,000 levels.
 */
function expectSameCollectionNesting(actual: unknown, expected: unknown, levels: number): void {
  const kind = (value: unknown) => (value instanceof Map ? 'Map' : value instanceof Set ? 'Set' : typeof value);
  let a = actual;
  let e = expected;
  let depth = 0;
  while (e instanceof Map || e instanceof Set) {
    expect(kind(a), `level ${depth}`).toBe(kind(e));
    const [aEntry, ...aRest] = [...(a as Map<unknown, unknown> | Set<unknown>)];
    const [eEntry] = [...e];
    expect(aRest, `level ${depth}: one entry`).toEqual([]);
    if (e instanceof Map) {
      expect((aEntry as [unknown, unknown])[0], `level ${depth}: key`).toBe((eEntry as [unknown, unknown])[0]);
      a = (aEntry as [unknown, unknown])[1];
      e = (eEntry as [unknown, unknown])[1];
    } else {
      a = aEntry;
      e = eEntry;
    }
    depth += 1;
  }
  expect(a).toEqual(e);
  expect(depth).toBe(levels);
}

function nest(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

const toolEnd = (toolCallId: string, output: unknown): JournalEvent => ({
  type: 'tool-call-end',
  toolCallId,
  toolName: 't',
  idempotencyKey: `k-${toolCallId}`,
  attempt: 1,
  output,
  durationMs: 1,
  source: 'executed',
});

describeEachJournal('journal properties', (target) => {
  const { journal, storage } = target.open();

  /** What the database holds for a run: its event rows and its summary row, as text. */
  async function snapshot(runId: string) {
    const db = await storage.database();
    const [events] = await query<{ count: string | number }>(db, sql`select count(*) as count from gnl.run_events where run_id = ${runId}`);
    const [run] = await query<{ row: string }>(
      db,
      sql`select concat_ws('|', status, last_seq, step_count, pending::text, updated_at::text) as row from gnl.runs where run_id = ${runId}`,
    );
    return { events: Number(events?.count), run: run?.row };
  }

  let hold: RunHold;
  let runId: string;
  beforeAll(async () => {
    runId = uniqueRunId('property');
    hold = await journal.hold(runId);
    await hold.create(input);
  }, 300_000); // opening (and migrating) the database is slow on a loaded machine
  afterAll(() => hold.release()); // before the storage closes (after-hooks run last-declared first)

  it('a payload of any storable value is stored and read back deep-equal, at the next sequence number', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(storable, async (value) => {
        n += 1;
        const lastSeq = (await journal.getRun(runId))?.lastSeq ?? 0;
        await hold.append([toolEnd(`c${n}`, value)]);
        const [back, ...more] = await journal.events(runId, { afterSeq: lastSeq });
        expect(more).toEqual([]);
        expect(back).toMatchObject({ type: 'tool-call-end', toolCallId: `c${n}`, seq: lastSeq + 1 });
        expect((back as { output: unknown }).output).toEqual(value);
        expect(Object.is((back as { output: unknown }).output, -0)).toBe(Object.is(value, -0));
      }),
      { numRuns: NUM_RUNS },
    );
    const all = await journal.events(runId);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
  });

  it('a value the journal cannot give back is refused by name, with nothing written, even beside storable events in one append', async () => {
    await fc.assert(
      fc.asyncProperty(poisoned, storable, fc.boolean(), async ({ kind, value }, good, first) => {
        const before = await snapshot(runId);
        const batch = first ? [toolEnd('bad', value), toolEnd('good', good)] : [toolEnd('good', good), toolEnd('bad', value)];
        const error = await hold.append(batch).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(JournalDataError.isInstance(error)).toBe(true);
        expect((error as Error).message).toMatch(/^A tool-call-end event cannot be journaled: Value cannot be journaled: the value at output\.inner/);
        expect((error as Error).message).toMatch(messageOf[kind]);
        expect((error as Error).message).toMatch(/Nothing was written\.$/);
        expect(await snapshot(runId)).toEqual(before);
      }),
      { numRuns: NUM_RUNS / 2 },
    );
  });

  it(`nesting up to MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) is stored, in objects, arrays, Maps and Sets; an event over MAX_EVENT_BYTES is refused`, async () => {
    const nestedMaps = (depth: number) => {
      let value: unknown = 'bottom';
      for (let i = 0; i < depth; i++) value = i % 2 ? new Map([['k', value]]) : new Set([value]);
      return value;
    };
    const readBack = async (value: unknown) => {
      const [recorded] = await hold.append([toolEnd('deep', value)]);
      const [back] = await journal.events(runId, { afterSeq: (recorded?.seq ?? 1) - 1 });
      return (back as { output: unknown }).output;
    };
    for (const value of [nest(MAX_JSON_DEPTH - 1), JSON.parse('{"$gnl": {"$gnl": "date"}, "__proto__": [1]}')]) expect(await readBack(value)).toEqual(value);
    // Values stored apart (over 64 KiB) come back the same, beside a user object shaped like GNL's reference to one.
    const big = {
      text: 'é\u0000'.repeat(40_000),
      bytes: new Uint8Array(100_000).fill(7),
      lookalike: { $gnl: 'blob', h: 'x'.repeat(64), n: 1 },
      many: Array(40).fill('y'.repeat(3000)),
    };
    expect(await readBack(big)).toEqual(big);
    expectSameCollectionNesting(await readBack(nestedMaps(MAX_JSON_DEPTH - 1)), nestedMaps(MAX_JSON_DEPTH - 1), MAX_JSON_DEPTH - 1);
    const before = await snapshot(runId);
    await expect(hold.append([toolEnd('big', '\u0000'.repeat(MAX_EVENT_BYTES))])).rejects.toThrow(/the limit is 128 MiB per event \(MAX_EVENT_BYTES\)/);
    expect(await snapshot(runId)).toEqual(before);
  });

  it('operator input: a side effect marked done with any storable output and reason keeps both; a function in the output is refused, nothing written', async () => {
    await fc.assert(
      fc.asyncProperty(storable, text, fc.option(poisoned, { nil: undefined }), async (output, reason, bad) => {
        const id = uniqueRunId('decide');
        const blocked = await journal.hold(id);
        try {
          await blocked.create(input);
          const pending: PendingItem[] = [
            {
              kind: 'side-effect',
              toolCallId: 'call-1',
              toolName: 't',
              input: { output },
              idempotencyKey: 'k-1',
              attempt: 1,
              startedAt: new Date(0).toISOString(),
              reason: 'no recorded outcome',
            },
          ];
          await blocked.append([
            { type: 'tool-call-start', toolCallId: 'call-1', toolName: 't', input: { output }, idempotencyKey: 'k-1', attempt: 1, sideEffect: true },
            { type: 'run-suspend', status: 'blocked', pending },
          ]);
        } finally {
          await blocked.release();
        }
        const before = await snapshot(id);
        const request = { runId: id, toolCallId: 'call-1', outcome: 'done' as const, by: 'operator@acme', reason: reason || undefined };
        if (bad) {
          await expect(journal.resolveSideEffect({ ...request, output: bad.value })).rejects.toThrow(messageOf[bad.kind]);
          expect(await snapshot(id)).toEqual(before);
          return;
        }
        const decision = await journal.resolveSideEffect({ ...request, output });
        const events = await journal.events(id);
        const resolution = events.at(-1) as Extract<JournalEvent, { type: 'side-effect-resolution' }>;
        expect(resolution).toMatchObject({ type: 'side-effect-resolution', toolCallId: 'call-1', by: 'operator@acme', outcome: 'done' });
        expect(resolution.output).toEqual(output);
        expect(resolution.reason).toBe(reason || undefined);
        expect((events[1] as { input: unknown }).input).toEqual({ output });
        const run = await journal.getRun(id);
        expect(run?.pending[0]?.decision).toEqual(decision);
        expect(run?.pending[0]?.input).toEqual({ output });
      }),
      { numRuns: NUM_RUNS / 3 },
    );
  });

  it('any sequence of approvals and rejections records exactly the first; each later one is a conflict naming who decided first', async () => {
    const decision = fc.record({ approve: fc.boolean(), by: fc.constantFrom('alice@acme', 'bob@acme', 'Zoë 🙂'), reason: fc.option(text, { nil: undefined }) });
    await fc.assert(
      fc.asyncProperty(fc.array(decision, { minLength: 1, maxLength: 5 }), async (decisions) => {
        const id = uniqueRunId('approve');
        const waiting = await journal.hold(id);
        try {
          await waiting.create(input);
          const requestedAt = new Date(0).toISOString();
          await waiting.append([
            { type: 'tool-approval-request', toolCallId: 'call-1', toolName: 't', input: {}, requestedAt },
            { type: 'run-suspend', status: 'waiting-approval', pending: [{ kind: 'approval', toolCallId: 'call-1', toolName: 't', input: {}, requestedAt }] },
          ]);
        } finally {
          await waiting.release();
        }
        const [first, ...later] = decisions as [(typeof decisions)[number], ...typeof decisions];
        const decide = ({ approve, by, reason }: typeof first) =>
          (approve ? journal.approve : journal.reject).call(journal, { runId: id, toolCallId: 'call-1', by, ...(reason ? { reason } : {}) });
        const recorded = await decide(first);
        expect(recorded).toMatchObject({ outcome: first.approve ? 'approved' : 'rejected', by: first.by });
        for (const next of later) {
          const error = await decide(next).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toMatchObject({ name: 'DecisionConflictError', reason: 'already-decided', decidedBy: first.by });
          expect((error as Error).message).toContain(`by ${first.by} at `);
        }
        const responses = (await journal.events(id)).filter((e) => e.type === 'tool-approval-response');
        expect(responses).toHaveLength(1);
        expect(responses[0]).toMatchObject({ approved: first.approve, by: first.by });
        expect((responses[0] as { reason?: string }).reason).toBe(first.reason || undefined);
        expect((await journal.getRun(id))?.pending[0]?.decision).toEqual(recorded);
      }),
      { numRuns: NUM_RUNS / 6 },
    );
  });

  it('operator names and call ids must be printable: a NUL or a lone surrogate is refused at the edge, not stored', async () => {
    const id = uniqueRunId('decide');
    const blocked = await journal.hold(id);
    await blocked.create(input);
    await blocked.release();
    const before = await snapshot(id);
    for (const request of [
      { runId: id, toolCallId: 'call-1', by: 'eve\u0000' },
      { runId: id, toolCallId: 'call-1', by: 'eve\ud800' },
      { runId: id, toolCallId: 'call\u0000', by: 'eve' },
    ]) {
      await expect(journal.approve(request)).rejects.toThrow(/printable/);
    }
    expect(await snapshot(id)).toEqual(before);
  });
});
