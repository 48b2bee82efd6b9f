/**
 * The Journal contract, run against each adapter on its real database: what every storage must
 * guarantee, independent of the runtime on top.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { migrations } from '@/db/migrations.generated';
import { DATABASE_URL, describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { z } from 'zod';
import { refundAgent } from '@/tests/support/refund-agent';
import { idempotencyKey, InvalidRunIdError, type JournalEvent, MAX_EVENT_BYTES, type RecordedEvent, RunBusyError, type RunInput, runDurable } from '../index';
import { createRun } from './event-rows';
import { PGliteStorage, PostgresStorage } from './index';
import { pgliteDriver, postgresDriver } from './sql-driver';
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

  it('a hold given the events read before it loads them again when the run moved since; a run created meanwhile is RunMovedError, not a second run', async () => {
    const runId = uniqueRunId();
    const first = await journal.hold(runId, { known: [] });
    expect(await first.load()).toEqual([]);
    await first.create(input);
    await first.append([note(1)]);
    await first.release();
    const read = await journal.events(runId);
    // Nothing moved: the first load is what was read (a journal may read again: the same events).
    const still = await journal.hold(runId, { known: read });
    expect((await still.load()).map((e) => e.seq)).toEqual([1, 2]);
    await still.append([note(2)]);
    await still.release();
    // It moved (seq 3 since the read): read again, whatever the caller knew.
    const moved = await journal.hold(runId, { known: read });
    expect((await moved.load()).map((e) => e.seq)).toEqual([1, 2, 3]);
    // Told it is new (known: []) though it exists: the load says otherwise, and a create refuses.
    await moved.release();
    const stale = await journal.hold(runId, { known: [] });
    expect((await stale.load()).map((e) => e.seq)).toEqual([1, 2, 3]);
    const refused = await stale.create(input).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect((refused as { name?: string })?.name).toBe('RunMovedError');
    expect((refused as { lastSeq?: number }).lastSeq).toBe(3);
    await stale.release();
    expect((await journal.events(runId)).map((e) => e.seq)).toEqual([1, 2, 3]);
    // Another run's events, as many: not this run's (its run-start is another run's time): read again.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const otherId = uniqueRunId();
    const other = await journal.hold(otherId);
    await other.create(input);
    await other.append([note(1), note(2)]);
    await other.release();
    const others = await journal.events(otherId);
    expect(others.map((e) => e.seq)).toEqual([1, 2, 3]);
    const mixed = await journal.hold(runId, { known: others });
    expect(await mixed.load()).toEqual(await journal.events(runId));
    await mixed.release();
  });

  it('createRun creates a run without holding it, once: of two callers at once one creates it, the other is told it exists; a holder takes it after', async () => {
    const create = journal.createRun?.bind(journal);
    if (!create) throw new Error('both journals create a run without a hold (startRun relies on it)');
    const runId = uniqueRunId('create');
    const results = await Promise.all([create(runId, input, { by: 'alice' }), create(runId, { ...input, prompt: 'other' })]);
    expect(results.filter((r) => r !== undefined).map((r) => r?.seq)).toEqual([1]);
    expect(await create(runId, input)).toBeUndefined();
    const events = await journal.events(runId);
    expect(events.map((e) => e.type)).toEqual(['run-start']);
    expect((await journal.getRun(runId))?.status).toBe('running');
    const hold = await journal.hold(runId);
    expect(await hold.load()).toEqual(events);
    await hold.append([note(1)]);
    await hold.release();
    expect((await journal.getRun(runId))?.lastSeq).toBe(2);
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

  it('answerEvents reads all of a run that is not completed, and of a completed run only what its answer needs', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    const step = (n: number): JournalEvent => ({ type: 'model-step', step: n, provider: 'x', modelId: 'm', latencyMs: 1, result: { n } });
    await hold.append([step(0), note(1), step(1)]);
    const answerEvents = journal.answerEvents?.bind(journal);
    expect(answerEvents).toBeDefined();
    if (!answerEvents) return;
    expect(await answerEvents(runId)).toEqual(await journal.events(runId));
    await hold.append([step(2), { type: 'run-complete', text: 't', finishReason: 'stop', steps: 3, answer: { v: 1 } }]);
    await hold.release();
    const needed = await answerEvents(runId);
    expect(needed.map((e) => [e.seq, e.type])).toEqual([
      [1, 'run-start'],
      [5, 'model-step'],
      [6, 'run-complete'],
    ]);
    expect(needed).toEqual((await journal.events(runId)).filter((e) => [1, 5, 6].includes(e.seq)));
  });

  it("a run-complete's answer is kept in the row's json column, not in its jsonb payload, and every read puts it back; one kept in the payload reads the same", async () => {
    const answer = {
      v: 1,
      steps: [{ stepNumber: 0, content: [{ type: 'text', text: 'Done.' }], answer: 'a key of the same name' }],
      at: new Date(0),
      bytes: new Uint8Array([1, 2]),
    };
    const complete: JournalEvent = { type: 'run-complete', text: 'Done.', finishReason: 'stop', steps: 1, answer };
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.append([{ type: 'model-step', step: 0, provider: 'x', modelId: 'm', latencyMs: 1, result: {} }, complete]);
    await hold.release();
    const db = await storage.database();
    const [row] = await query<{ in_payload: boolean; apart: string | null }>(
      db,
      sql`select payload ? 'answer' as in_payload, answer::text as apart from gnl.run_events where run_id = ${runId} and type = 'run-complete'`,
    );
    expect(row?.in_payload).toBe(false);
    expect(row?.apart).toContain('a key of the same name');
    const read = (await journal.events(runId)).find((e) => e.type === 'run-complete');
    expect(read).toMatchObject({ ...complete, seq: 3 });
    expect(read?.type === 'run-complete' && read.answer).toEqual(answer);
    expect((await journal.events(runId, { afterSeq: 2, limit: 1 }))[0]).toEqual(read);
    expect((await journal.answerEvents?.(runId))?.at(-1)).toEqual(read);

    // A row from before the column (or imported): the answer in its payload, read as it always was.
    const older = uniqueRunId();
    const olderHold = await journal.hold(older);
    await olderHold.create(input);
    await olderHold.release();
    const stored = { text: 'Done.', finishReason: 'stop', steps: 1, answer: { v: 1, steps: [] } };
    await db.execute(sql`insert into gnl.run_events (run_id, seq, type, payload) values (${older}, 2, 'run-complete', ${JSON.stringify(stored)}::jsonb)`);
    expect((await journal.events(older)).at(-1)).toMatchObject({ type: 'run-complete', seq: 2, ...stored });

    // A null answer (the schema allows it) stays in the payload: the column's JSON null would read as none.
    const nullRun = uniqueRunId();
    const nullHold = await journal.hold(nullRun);
    await nullHold.create(input);
    await nullHold.append([{ type: 'run-complete', text: 't', finishReason: 'stop', steps: 0, answer: null }]);
    await nullHold.release();
    expect((await journal.events(nullRun)).at(-1)).toHaveProperty('answer', null);
  });

  it('a resume request is recorded with who, why and when, announced live, and changes neither the status nor the pending list', async () => {
    const pending = [{ kind: 'approval' as const, toolCallId: 'c', toolName: 't', input: {}, requestedAt: new Date().toISOString() }];
    for (const status of ['waiting-approval', 'blocked'] as const) {
      const runId = uniqueRunId();
      const hold = await journal.hold(runId);
      await hold.create(input);
      await hold.append([{ type: 'run-suspend', status, pending }]);
      await hold.release();
      const seen: RecordedEvent[] = [];
      const subscription = await storage.runs.subscribe({ runId, afterSeq: 2, onEvents: (events) => void seen.push(...events) });
      const before = await journal.getRun(runId);
      const { requestedAt } = await journal.requestResume({ runId, by: '  alice@acme ', reason: 'customer called back' });
      expect(Math.abs(requestedAt.getTime() - Date.now())).toBeLessThan(60_000);
      expect((await journal.events(runId)).at(-1)).toEqual({
        type: 'run-resume-request',
        by: 'alice@acme',
        reason: 'customer called back',
        seq: 3,
        at: requestedAt,
      });
      expect(await journal.getRun(runId)).toEqual({ ...before, lastSeq: 3, updatedAt: expect.any(Date) });
      await expect.poll(() => seen.map((e) => [e.seq, e.type])).toEqual([[3, 'run-resume-request']]);
      await subscription.close();
      // Without a reason, none is recorded.
      await journal.requestResume({ runId, by: 'bob@acme' });
      expect((await journal.events(runId)).at(-1)).toEqual({ type: 'run-resume-request', by: 'bob@acme', seq: 4, at: expect.any(Date) });
      expect((await journal.getRun(runId))?.status).toBe(status);
    }
  });

  it('a resume request lands under the run row lock beside its holder’s appends, numbered in turn, and leaves the status the holder sets', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    const [requested, appended] = await Promise.all([
      journal.requestResume({ runId, by: 'alice@acme' }),
      Promise.all(Array.from({ length: 5 }, (_, i) => hold.append([note(i)]))),
    ]);
    await hold.release();
    const events = await journal.events(runId);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(events.filter((e) => e.type === 'run-resume-request')).toEqual([expect.objectContaining({ at: requested.requestedAt })]);
    expect(appended.flat().map((e) => e.seq)).not.toContain(events.find((e) => e.type === 'run-resume-request')?.seq);
    expect(await journal.getRun(runId)).toMatchObject({ status: 'failed', lastSeq: 7 });
  });

  it('a resume request for an unknown, completed or canceled run is refused with the conflict, naming who canceled; nothing is written', async () => {
    await expect(journal.requestResume({ runId: uniqueRunId('none'), by: 'alice@acme' })).rejects.toMatchObject({
      name: 'DecisionConflictError',
      reason: 'unknown-run',
    });
    const done = uniqueRunId();
    const hold = await journal.hold(done);
    await hold.create(input);
    await hold.append([{ type: 'run-complete', text: 't', finishReason: 'stop', steps: 0 }]);
    await hold.release();
    await expect(journal.requestResume({ runId: done, by: 'alice@acme' })).rejects.toMatchObject({ reason: 'run-finished', runId: done });
    expect(await journal.events(done)).toHaveLength(2);

    const canceled = uniqueRunId();
    const other = await journal.hold(canceled);
    await other.create(input);
    await other.release();
    const { canceledAt } = await journal.cancel({ runId: canceled, by: 'carol@acme', reason: 'duplicate' });
    const refused = await journal.requestResume({ runId: canceled, by: 'alice@acme', reason: 'try again' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'DecisionConflictError', reason: 'already-decided', decidedBy: 'carol@acme', decidedAt: canceledAt });
    expect((refused as Error).message).toBe(`Decision refused: run "${canceled}" was already canceled by carol@acme at ${canceledAt.toISOString()}.`);
    expect((await journal.events(canceled)).map((e) => e.type)).toEqual(['run-start', 'run-cancel']);
  });

  it('a bad resume request (no one named, control characters, an over-long reason, a bad runId) is refused and writes nothing', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.release();
    for (const [request, message] of [
      [{ runId, by: '   ' }, /requestResume: .*by: say who decides/s],
      [{ runId, by: 'alice\u0007@acme' }, /by must contain only printable characters/],
      [{ runId, by: 'ali\nce' }, /by must contain only printable characters/],
      [{ runId, by: 'alice', reason: 'x'.repeat(4001) }, /reason/],
      [{ runId: '', by: 'alice' }, /runId/],
      [{ runId } as never, /by/],
    ] as const) {
      const error = await journal.requestResume(request).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'JournalDataError', message: expect.stringMatching(message) });
      expect((error as Error).cause).toBeDefined();
    }
    await journal.requestResume({ runId, by: 'alice', reason: 'x'.repeat(4000) });
    expect((await journal.events(runId)).map((e) => e.type)).toEqual(['run-start', 'run-resume-request']);
  });

  it('every method takes a runId in its one spelling: the NFD spelling reads, decides and holds the NFC run; a refused spelling is InvalidRunIdError', async () => {
    const runId = uniqueRunId('caf\u00e9');
    const nfd = runId.normalize('NFD');
    const hold = await journal.hold(nfd);
    await hold.create({ ...input, toolNames: ['refund'] });
    await hold.release();
    expect(await journal.runIdOf(nfd)).toBe(runId);
    expect((await journal.getRun(nfd))?.runId).toBe(runId);
    expect((await journal.events(nfd)).map((e) => e.type)).toEqual(['run-start']);
    await journal.requestResume({ runId: nfd, by: 'alice@acme' });
    expect((await journal.events(runId)).map((e) => e.type)).toEqual(['run-start', 'run-resume-request']);
    for (const refused of [`${runId}\u200b`, `${runId} `, '\u202e']) {
      await expect(journal.runIdOf(refused)).rejects.toThrow(InvalidRunIdError);
      await expect(journal.hold(refused)).rejects.toThrow(InvalidRunIdError);
      await expect(journal.events(refused)).rejects.toThrow(InvalidRunIdError);
    }
  });

  it('a run recorded before the runId rule, under a spelling it changes or refuses, is found as given and continued, never started again', async () => {
    for (const legacy of [uniqueRunId('caf\u00e9').normalize('NFD'), `${uniqueRunId('zw')}\u200b`]) {
      await recordRaw(legacy, { prompt: 'Refund o_17', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['refund'], keyScheme: 3 });
      expect(await journal.runIdOf(legacy)).toBe(legacy);
      const agent = refundAgent({ sideEffect: true });
      const result = await runDurable({ runId: legacy, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
      expect(result).toMatchObject({ status: 'completed', runId: legacy });
      expect([...agent.ledger.executions]).toEqual([[idempotencyKey({ kind: 'call', runId: legacy, toolCallId: 'call-refund', toolName: 'refund' }), 1]]);
      expect((await journal.events(legacy)).at(-1)?.type).toBe('run-complete');
      // Its normalized spelling names no run: nothing was started under it.
      const normalized = legacy.normalize('NFC').replace('\u200b', '');
      expect(await journal.getRun(normalized)).toBeUndefined();
    }
  });

  /** Writes a run-start under runId exactly as given, past the journal's rule: a run recorded by an older GNL. */
  async function recordRaw(runId: string, runInput: RunInput) {
    if (storage instanceof PGliteStorage) return createRun(pgliteDriver(await storage.pglite()), runId, runInput, { notifyInStatement: false });
    const client = postgres(DATABASE_URL as string, { max: 1, onnotice: () => {} });
    try {
      return await createRun(postgresDriver(client), runId, runInput, { notifyInStatement: false });
    } finally {
      await client.end();
    }
  }

  it('a released hold cannot append, and a held run cannot be held twice', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    const busy = await journal.hold(runId).catch((e: unknown) => e);
    expect(RunBusyError.isInstance(busy)).toBe(true);
    expect((busy as Error).name).toBe('RunBusyError');
    // Held by this process: the error says so as a field (the executor never takes over its own hold).
    expect((busy as RunBusyError).holderPid).toBe(process.pid);
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

  it('pages past a run whose id is 512 four-byte characters (its cursor is within the accepted size)', async () => {
    const older = await journal.hold(uniqueRunId());
    await older.create(input);
    await older.release();
    const runId = `${'𝔤'.repeat(480)}${uniqueRunId().slice(-32)}`;
    const hold = await journal.hold(runId);
    await hold.create(input);
    await hold.release();
    // Newest first: on a shared database runs created after this one come first, so page down to it.
    let first = await journal.listRuns({ limit: 1 });
    for (let pages = 0; pages < 500 && first.runs[0]?.runId !== runId && first.nextCursor; pages++) {
      first = await journal.listRuns({ limit: 1, cursor: first.nextCursor });
    }
    expect(first.runs[0]?.runId).toBe(runId);
    expect(first.nextCursor).toBeDefined();
    const next = await journal.listRuns({ limit: 1, cursor: first.nextCursor });
    expect(next.runs[0]?.runId).not.toBe(runId);
  });

  it('refuses an event over MAX_EVENT_BYTES before writing anything, naming the limit; one just under it is kept', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    const sized = (bytes: number): JournalEvent => ({ type: 'run-fail', error: { name: 'Big', message: 'x'.repeat(bytes) } });
    const refused = await hold.append([note(1), sized(MAX_EVENT_BYTES)]).catch((e: unknown) => e as Error);
    expect(refused).toMatchObject({
      name: 'JournalDataError',
      message: expect.stringMatching(/limit is 128 MiB per event \(MAX_EVENT_BYTES\)/),
      tooLarge: { eventType: 'run-fail', limit: MAX_EVENT_BYTES, bytes: expect.any(Number) },
    });
    expect((await journal.events(runId)).map((e) => e.seq)).toEqual([1]);
    expect((await journal.getRun(runId))?.lastSeq).toBe(1);
    const [kept] = await hold.append([sized(MAX_EVENT_BYTES - 1000)]);
    expect(kept?.seq).toBe(2);
    await hold.release();

    const tooBig = uniqueRunId();
    const other = await journal.hold(tooBig);
    await expect(other.create({ ...input, prompt: 'y'.repeat(MAX_EVENT_BYTES) })).rejects.toMatchObject({ name: 'JournalDataError' });
    await other.release();
    expect(await journal.getRun(tooBig)).toBeUndefined();
    // Writes and reads back an event of nearly 128 MiB: over the default minute on a loaded 2-core machine.
  }, 240_000);

  it('refuses an event off its schema before writing anything, naming the type and the fields, the zod error as cause', async () => {
    const runId = uniqueRunId();
    const hold = await journal.hold(runId);
    await hold.create(input);
    // A source the vocabulary does not have and a missing attempt: what a caller that casts could hand over.
    const offSchema = {
      type: 'tool-call-end',
      toolCallId: 'c1',
      toolName: 'refund',
      idempotencyKey: 'k',
      output: { ok: true },
      durationMs: 3,
      source: 'guessed',
    } as unknown as JournalEvent;
    const refused = await hold.append([note(1), offSchema]).catch((e: unknown) => e as Error);
    expect(refused).toMatchObject({
      name: 'JournalDataError',
      message: expect.stringMatching(/^A tool-call-end event cannot be journaled: .*attempt: .*source: .*Nothing was written\.$/),
      invalidEvent: { eventType: 'tool-call-end', fields: ['attempt', 'source'] },
    });
    expect((refused as Error).cause).toBeInstanceOf(z.ZodError);
    const unknownType = await hold.append([{ type: 'run-pause' } as unknown as JournalEvent]).catch((e: unknown) => e as Error);
    expect(unknownType).toMatchObject({ name: 'JournalDataError', invalidEvent: { eventType: 'run-pause', fields: ['type'] } });
    expect((await journal.events(runId)).map((e) => e.seq)).toEqual([1]);
    expect((await journal.getRun(runId))?.lastSeq).toBe(1);
    await hold.release();

    const badStart = uniqueRunId();
    const other = await journal.hold(badStart);
    const created = await other.create({ ...input, toolNames: 'refund' } as unknown as RunInput).catch((e: unknown) => e as Error);
    expect(created).toMatchObject({ name: 'JournalDataError', invalidEvent: { eventType: 'run-start', fields: ['input.toolNames'] } });
    await other.release();
    expect(await journal.getRun(badStart)).toBeUndefined();
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

  it('lists only the runs of the agents and workflows named, paging through them alone', async () => {
    const tag = randomUUID().slice(0, 8);
    const made: Record<string, string[]> = { agent: [], workflow: [], other: [] };
    for (let i = 0; i < 3; i++) {
      for (const [kind, start] of [
        ['agent', { ...input, agent: `mine-${tag}` }],
        ['workflow', { ...input, workflow: { name: `flow-${tag}`, input: { i } } }],
        ['other', { ...input, agent: `theirs-${tag}` }],
      ] as const) {
        const runId = `names:${tag}:${kind}:${i}`;
        made[kind]?.push(runId);
        const hold = await journal.hold(runId);
        await hold.create(start);
        await hold.release();
      }
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await journal.listRuns({ limit: 2, cursor, names: [`mine-${tag}`, `flow-${tag}`] });
      seen.push(...page.runs.map((r) => r.runId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual([...(made.agent ?? []), ...(made.workflow ?? [])].sort());
    expect((await journal.listRuns({ status: 'running', names: [`theirs-${tag}`] })).runs.map((r) => r.runId).sort()).toEqual(made.other);
    await expect(journal.listRuns({ names: [] })).rejects.toThrow(/names/);
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
      const elsewhere = await b.runs.hold(runId).catch((e: unknown) => e);
      expect(elsewhere).toMatchObject({ name: 'RunBusyError', message: expect.stringContaining('database session') });
      // Another storage's session holds it: not known to be this process, so a takeover may end it.
      expect((elsewhere as RunBusyError).holderPid).toBeUndefined();
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

  it('an append is fenced by the holder token too: once the run has another holder, the old writer adds nothing, though its lock session lives', async () => {
    const storage = new PostgresStorage({ connectionString: DATABASE_URL as string });
    try {
      const runId = uniqueRunId();
      const hold = await storage.runs.hold(runId);
      await hold.create(input);
      await hold.append([note(1)]);
      const db = await storage.database();
      // What a new holder's take writes (a session that reused this one's pid would pass the lock check).
      await db.execute(sql`update gnl.runs set holder = ${randomUUID()} where run_id = ${runId}`);
      await expect(hold.append([note(2)])).rejects.toMatchObject({ name: 'HoldLostError', runId });
      const [lock] = await query<{ granted: boolean }>(
        db,
        sql`select granted from pg_locks where locktype = 'advisory' and ((classid::bigint << 32) | objid::bigint) = (${advisoryKey(runId)}::bigint)`,
      );
      expect(lock?.granted).toBe(true);
      expect((await storage.runs.events(runId)).map((e) => e.seq)).toEqual([1, 2]);
      await hold.release();
      const again = await storage.runs.hold(runId); // taking it writes a fresh token
      await again.append([note(3)]);
      await again.release();
      expect((await storage.runs.events(runId)).map((e) => e.seq)).toEqual([1, 2, 3]);
    } finally {
      await storage.close();
    }
  });

  it('a takeover in flight: an old writer whose session died appends before the taker reads the run, or not at all, never after', async () => {
    const storage = new PostgresStorage({ connectionString: DATABASE_URL as string });
    const admin = postgres(DATABASE_URL as string, { max: 2, onnotice: () => {} });
    try {
      const runId = uniqueRunId();
      const key = advisoryKey(runId);
      const hold = await storage.runs.hold(runId);
      await hold.create(input);
      const [side] = await admin<{ pid: number }[]>`
        select pid from pg_locks where locktype = 'advisory' and granted and ((classid::bigint << 32) | objid::bigint) = (${key}::bigint)`;
      await admin`select pg_terminate_backend(${side?.pid as number}, 5000)`;
      // A take is one statement (advisory-holds.ts): its lock, then its token. Here in halves, the lock first.
      const taker = await admin.reserve();
      try {
        await taker`select pg_advisory_lock(${key}::bigint)`;
        // The lock is held (the taker's) and the token is still the writer's: the append lands...
        await hold.append([note(1)]);
        await taker`begin`;
        // ...and the taker, writing its token, reads the run with it.
        const [taken] = await taker<{ last_seq: number }[]>`update gnl.runs set holder = ${randomUUID()} where run_id = ${runId} returning last_seq`;
        expect(taken?.last_seq).toBe(2);
        // Once the token is written (committed while the append waits for the run's row), nothing more lands.
        const late = hold.append([note(2)]).catch((e: unknown) => e);
        await new Promise((resolve) => setTimeout(resolve, 100));
        await taker`commit`;
        expect(await late).toMatchObject({ name: 'HoldLostError', runId });
        expect((await storage.runs.events(runId)).map((e) => e.seq)).toEqual([1, 2]);
        await taker`select pg_advisory_unlock(${key}::bigint)`;
      } finally {
        taker.release();
      }
    } finally {
      await Promise.allSettled([storage.close(), admin.end({ timeout: 1 })]);
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
      expect(tags.map((t) => t.tag)).toEqual(migrations.map((m) => m.tag));
      expect((await second.runs.listRuns()).runs).toEqual([]);
    } finally {
      await Promise.allSettled([first.close(), second.close()]);
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
