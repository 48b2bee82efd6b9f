/**
 * Erasure on both real journals (run-keys.ts, docs/erasure.md): with run keys on, a run's user data is
 * sealed with a key of its own; erasing the run destroys that key. Checked against the database itself:
 * the raw rows, and the database's files on disk (PGlite's folder; the Postgres server's files of the
 * suite's own database), where the personal data is never found, and the wrapped key is found before
 * the erasure (so the search can find what it looks for) and not after. The run's shape (events, times,
 * decisions' authors) and the audit of the erasure stay; an erased run never runs again.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { tool } from 'ai';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { DATABASE_URL, describeEachJournal, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { refusal } from '@/tests/support/refusal';
import { refundAgent as ledgerAgent } from '@/tests/support/refund-agent';
import { scriptedModel, streamingModel } from '@/tests/support/scripted-model';
import { ERASED_TEXT, gnlTool, JournalDataError, journalKeyFrom, RunErasedError, runDurable, streamDurable } from '../internal';
import { PGliteStorage } from './pglite-storage';
import { PostgresStorage } from './postgres-storage';
import { query } from './sql-rows';
import { defineWorkflow, runWorkflow } from '../workflow';

const NAME = 'Ada Quintessa Lovelace';
const ADDRESS = '12 Analytical Row, Marylebone';
const PROMPT = `Customer ${NAME} at ${ADDRESS} wants a refund of 40 for order o_17.`;

function refundAgent() {
  const sent: unknown[] = [];
  const refund = gnlTool(
    tool({
      inputSchema: z.object({ customer: z.string(), address: z.string(), amount: z.number() }),
      needsApproval: true,
      execute: async (input) => {
        sent.push(input);
        return { refundId: 'r_o_17', note: `Refund sent to ${input.address}` };
      },
    }),
    { sideEffect: true },
  );
  const script = (step: number) =>
    step === 0
      ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { customer: NAME, address: ADDRESS, amount: 40 } }] }
      : { text: `Refunded 40 to ${NAME} at ${ADDRESS}.` };
  return { tools: { refund }, script, sent };
}

/** Every file under `dir` (recursively) whose bytes hold `needle`, relative to `dir`. */
function filesHolding(dir: string, needle: string, skip: (relative: string) => boolean = () => false): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = path.join(at, name);
      const relative = path.relative(dir, full);
      if (skip(relative)) continue;
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full);
      else if (stat.isFile() && readFileSync(full).includes(bytes)) found.push(relative);
    }
  };
  walk(dir);
  return found;
}

describeEachJournal('erasure', (target) => {
  const journalKey = journalKeyFrom(randomBytes(32).toString('base64'));
  const dataDir = tempDataDir();
  let database: { url: string; drop(): Promise<void> } | undefined;
  let storage: PGliteStorage | PostgresStorage;
  const secrets = { key: journalKey, runKeys: true, onClearText: () => {} };
  /**
   * Another storage over the same database, with a key cache of its own: another process on Postgres;
   * on PGlite (one process per folder) a second storage in this process, sharing the folder's database.
   */
  const another = () =>
    target.name === 'pglite' ? new PGliteStorage({ dataDir, secrets }) : new PostgresStorage({ connectionString: (database as { url: string }).url, secrets });
  beforeAll(async () => {
    if (target.name === 'postgres') database = await createFreshDatabase(DATABASE_URL as string, 'gnl_erasure');
    storage = another();
    await storage.database();
  }, 300_000);
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  const rows = async <T>(statement: ReturnType<typeof sql>) => query<T>(await storage.database(), statement);
  const checkpoint = async () => void (await rows(sql`checkpoint`));

  /** The files the database keeps this suite's data in, and which of them are write-ahead log (never rewritten in place). */
  async function databaseFiles(): Promise<{ dir: string; isLog: (relative: string) => boolean }> {
    if (target.name === 'pglite') return { dir: dataDir, isLog: (relative) => relative.startsWith('pg_wal') };
    const [setting] = await rows<{ dir: string; oid: number }>(
      sql`select current_setting('data_directory') as dir, oid from pg_database where datname = current_database()`,
    );
    const dir = path.join(setting?.dir as string, 'base', String(setting?.oid));
    if (!existsSync(dir))
      throw new Error(`The Postgres server's files are not readable from this process (${dir}): run the suite as the server's owner or root.`);
    return { dir, isLog: () => false };
  }

  it('sealed with its own key, a run is erased by subject: no byte of its data can be read back, its shape and the audit stay, and it never runs again', async () => {
    const subject = `customer:${uniqueRunId('c')}`;
    const journal = storage.runs;
    const agent = refundAgent();
    const asked = uniqueRunId('erase');
    const call = () => runDurable({ runId: asked, journal, model: scriptedModel(agent.script).model, tools: agent.tools, prompt: PROMPT, subject });
    expect((await call()).status).toBe('waiting-approval');

    // Waiting for a person, it may still run: refused, nothing changes.
    expect(await storage.erasure.erase({ runIds: [asked], by: 'dpo@acme', reason: 'GDPR art. 17 request #881' })).toEqual([
      { runId: asked, outcome: 'refused', why: expect.stringContaining('waiting-approval') },
    ]);
    await journal.approve({ runId: asked, toolCallId: 'call-refund', by: 'alice@acme' });
    expect((await call()).status).toBe('completed');
    expect(agent.sent).toEqual([{ customer: NAME, address: ADDRESS, amount: 40 }]);

    // A second run of the same subject, streamed: its stream log is sealed with its key too.
    const streamedId = uniqueRunId('erase-stream');
    const streamed = streamDurable({
      runId: streamedId,
      journal,
      model: streamingModel(() => ({ text: `Hello ${NAME}, your order o_17 is on its way to ${ADDRESS}.` })).model,
      prompt: PROMPT,
      subject,
      resumable: true,
    });
    await streamed.consumeStream();
    expect((await streamed.durable).status).toBe('completed');
    expect((await journal.streamBatches(streamedId)).length).toBeGreaterThan(0);

    // Before: readable through the journal; in the database only envelopes.
    const before = await journal.events(asked);
    expect(JSON.stringify(before)).toContain(NAME);
    const raw = await rows<{ text: string }>(
      sql`select payload::text || coalesce(answer::text, '') as text from gnl.run_events where run_id in (${asked}, ${streamedId})
          union all select input::text || pending::text from gnl.runs where run_id in (${asked}, ${streamedId})
          union all select chunks::text from gnl.stream_chunks where run_id in (${asked}, ${streamedId})`,
    );
    expect(raw.length).toBeGreaterThan(before.length);
    for (const row of raw) {
      expect(row.text).not.toContain('Quintessa');
      expect(row.text).not.toContain('Analytical');
    }
    expect(raw.some((row) => row.text.includes('"$gnl:enc": "r1:'))).toBe(true);
    const [key] = await rows<{ wrapped: string }>(sql`select wrapped from gnl.run_keys where run_id = ${asked}`);
    const wrapped = key?.wrapped as string;
    expect(wrapped).toMatch(new RegExp(`^v1:${journalKey.id}:`));
    await checkpoint();
    const files = await databaseFiles();
    // The search finds what is on disk: the wrapped key is, before the erasure.
    expect(filesHolding(files.dir, wrapped, files.isLog).length).toBeGreaterThan(0);

    const outcomes = await storage.erasure.erase({ subject, by: 'dpo@acme', reason: 'GDPR art. 17 request #881' });
    expect(outcomes.map((o) => [o.runId, o.outcome])).toEqual([
      [asked, 'erased'],
      [streamedId, 'erased'],
    ]);

    // After: the shape stays (every event, its number, type and time; who approved), the data reads as erased.
    const after = await journal.events(asked);
    expect(after.map((e) => [e.seq, e.type, e.at.toISOString()])).toEqual(before.map((e) => [e.seq, e.type, e.at.toISOString()]));
    expect(JSON.stringify(after)).not.toContain(NAME);
    expect(after.find((e) => e.type === 'run-start')).toMatchObject({ input: { prompt: ERASED_TEXT, subject, modelId: 'scripted-v1' } });
    expect(after.find((e) => e.type === 'tool-call-start')).toMatchObject({ toolName: 'refund', input: ERASED_TEXT });
    expect(after.find((e) => e.type === 'tool-approval-response')).toMatchObject({ by: 'alice@acme', approved: true });
    expect(after.find((e) => e.type === 'model-step')).toMatchObject({ result: { usage: expect.anything() } });
    expect(after.find((e) => e.type === 'run-complete')).toMatchObject({ text: ERASED_TEXT });
    const summary = await journal.getRun(asked);
    expect(summary).toMatchObject({ status: 'completed', input: { prompt: ERASED_TEXT }, erased: { by: 'dpo@acme', reason: 'GDPR art. 17 request #881' } });
    expect(await journal.streamBatches(streamedId)).toEqual([]);
    const log = await storage.erasure.erasures();
    expect(log.filter((e) => e.subject === subject).map((e) => [e.runId, e.by, e.reason])).toEqual([
      [streamedId, 'dpo@acme', 'GDPR art. 17 request #881'],
      [asked, 'dpo@acme', 'GDPR art. 17 request #881'],
    ]);

    // In the database: the key is gone from its row and from the files (rewritten by the erasure); the data was never there in clear.
    expect(await rows(sql`select wrapped, erased_by from gnl.run_keys where run_id = ${asked}`)).toEqual([{ wrapped: null, erased_by: 'dpo@acme' }]);
    await checkpoint();
    expect(filesHolding(files.dir, wrapped, files.isLog)).toEqual([]);
    expect(filesHolding(files.dir, 'Quintessa')).toEqual([]);
    expect(filesHolding(files.dir, 'Analytical')).toEqual([]);

    // It never runs again, and erasing it again changes nothing.
    await expect(call()).rejects.toSatisfy((error: unknown) => error instanceof RunErasedError && /erased by dpo@acme/.test((error as Error).message));
    expect(await storage.erasure.erase({ runIds: [asked], by: 'someone@else', reason: 'again' })).toEqual([
      { runId: asked, outcome: 'already-erased', erasure: expect.objectContaining({ by: 'dpo@acme' }) },
    ]);
    expect((await storage.erasure.erasures({ runId: asked })).length).toBe(1);
  }, 120_000);

  /** A refund run that failed before its refund ran (the provider was down), through `journal`: it may be resumed, or erased. */
  async function failedRefundRun(journal: typeof storage.runs, runId: string) {
    const down = scriptedModel(() => {
      throw Object.assign(new Error('provider down'), { name: 'ProviderDown' });
    });
    const agent = ledgerAgent();
    await runDurable({ runId, journal, model: down.model, tools: agent.tools, prompt: PROMPT, maxRetries: 0 }).catch(() => undefined);
    expect((await journal.getRun(runId))?.status).toBe('failed');
  }

  it('erasure takes effect for every process at once: one that read the run a moment before (its key cached) cannot resume it, and the refund never executes', async () => {
    const other = another();
    try {
      const runId = uniqueRunId('erase-race');
      await failedRefundRun(other.runs, runId); // `other` made the run's key and holds it in its cache
      expect((await other.runs.getRun(runId))?.input.prompt).toBe(PROMPT);
      const before = await storage.runs.events(runId);

      expect((await storage.erasure.erase({ runIds: [runId], by: 'dpo@acme', reason: 'request #883' }))[0]?.outcome).toBe('erased');

      // Within its cache's lifetime, `other` resumes the run: refused before any tool executes.
      const agent = ledgerAgent();
      const resumed = runDurable({ runId, journal: other.runs, model: agent.scripted.model, tools: agent.tools, prompt: PROMPT });
      await expect(resumed).rejects.toSatisfy((error: unknown) => error instanceof RunErasedError && (error as RunErasedError).erasure.by === 'dpo@acme');
      expect(agent.ledger.total).toBe(0);
      // Nor does any other writer append to it: a resume request, a cancel.
      await expect(other.runs.requestResume({ runId, by: 'ops@acme' })).rejects.toBeInstanceOf(RunErasedError);
      await expect(other.runs.cancel({ runId, by: 'ops@acme', reason: 'x' })).rejects.toBeInstanceOf(RunErasedError);
      expect((await storage.runs.getRun(runId))?.status).toBe('failed');
      expect((await storage.runs.events(runId)).map((e) => e.seq)).toEqual(before.map((e) => e.seq));
    } finally {
      await other.close();
    }
  }, 120_000);

  it('a writer that took the run before its erasure appends nothing after it (Postgres: the erasure is refused while a writer holds the run; PGlite: the next append of its holder is refused)', async () => {
    const runId = uniqueRunId('erase-held');
    await failedRefundRun(storage.runs, runId);
    const other = another();
    try {
      const hold = await other.runs.hold(runId); // an executor's resume, between taking the run and its first append
      const [outcome] = await storage.erasure.erase({ runIds: [runId], by: 'dpo@acme', reason: 'request #884' });
      if (target.name === 'postgres') {
        expect(outcome).toEqual({ runId, outcome: 'refused', why: expect.stringContaining('held') });
        await hold.release();
        expect((await storage.erasure.erase({ runIds: [runId], by: 'dpo@acme', reason: 'request #884' }))[0]?.outcome).toBe('erased');
      } else {
        // PGlite's holds are in-process: the erasure goes through, and the holder's next append is refused in its statement.
        expect(outcome?.outcome).toBe('erased');
        await expect(hold.append([{ type: 'run-resume', fromStatus: 'failed' }])).rejects.toBeInstanceOf(RunErasedError);
        await hold.release();
      }
      await expect(other.runs.hold(runId)).rejects.toBeInstanceOf(RunErasedError);
      expect((await storage.runs.getRun(runId))?.status).toBe('failed');
    } finally {
      await other.close();
    }
  }, 120_000);

  it('the key row changes one way and the erasure log never: the database refuses anything else', async () => {
    const runId = uniqueRunId('erase-guard');
    const agent = refundAgent();
    await runDurable({ runId, journal: storage.runs, model: scriptedModel(agent.script).model, tools: agent.tools, prompt: PROMPT });
    await storage.runs.cancel({ runId, by: 'ops@acme', reason: 'customer withdrew' });
    expect(await refusal(rows(sql`update gnl.run_keys set wrapped = 'v1:00000000:AAAA' where run_id = ${runId}`))).toMatch(/may only be erased/);
    expect(await refusal(rows(sql`delete from gnl.run_keys where run_id = ${runId}`))).toMatch(/may only be erased/);
    expect((await storage.erasure.erase({ runIds: [runId], by: 'dpo@acme', reason: 'request #882' }))[0]?.outcome).toBe('erased');
    expect(await refusal(rows(sql`update gnl.run_keys set wrapped = 'v1:00000000:AAAA' where run_id = ${runId}`))).toMatch(/may only be erased/);
    expect(await refusal(rows(sql`update gnl.erasures set reason = 'nothing' where run_id = ${runId}`))).toMatch(/append-only/);
    expect(await refusal(rows(sql`delete from gnl.erasures where run_id = ${runId}`))).toMatch(/append-only/);
    expect((await storage.erasure.erasures({ runId })).map((e) => e.reason)).toEqual(['request #882']);
  }, 60_000);

  it('a workflow run is sealed and erased like an agent run: its input, a step, an event and its output', async () => {
    const subject = `customer:${uniqueRunId('wf')}`;
    const journal = storage.runs;
    const flow = defineWorkflow({
      name: 'erasable',
      input: z.object({ customer: z.string() }),
      events: { reply: z.object({ text: z.string() }) },
      run: async (wf, { customer }) => {
        const address = await wf.step('address', { input: { customer } }, () => ADDRESS);
        const reply = await wf.waitForEvent<{ text: string }>('reply', { match: { text: `From ${NAME}` } });
        return { customer, address, reply: reply.timedOut ? null : reply.payload.text };
      },
    });
    const runId = uniqueRunId('erase-wf');
    const invoke = () => runWorkflow({ workflow: flow, runId, input: { customer: NAME }, journal, subject });
    expect((await invoke()).status).toBe('waiting');
    await journal.sendEvent({ runId, name: 'reply', payload: { text: `From ${NAME}` }, by: 'desk' });
    expect(await invoke()).toMatchObject({ status: 'completed', output: { customer: NAME, address: ADDRESS } });
    const raw = await rows<{ text: string }>(
      sql`select payload::text || coalesce(answer::text, '') as text from gnl.run_events where run_id = ${runId} union all select input::text from gnl.runs where run_id = ${runId}`,
    );
    for (const row of raw) {
      expect(row.text).not.toContain('Quintessa');
      expect(row.text).not.toContain('Analytical');
    }
    expect(JSON.stringify(await journal.events(runId))).toContain(NAME);
    // What memory holds about the subject (the resource named like it) goes with the erasure.
    await storage.memory.add({ resource: subject, key: `${runId}-fact`, items: [{ kind: 'fact', text: 'Zyxwvut likes the night shift' }] });
    await storage.memory.writeWorking({ resource: subject, expectedVersion: 0, value: { nickname: 'Zyxwvut' }, by: 'agent', key: `${runId}-working` });
    expect((await storage.erasure.erase({ subject, by: 'dpo@acme', reason: 'request #883' })).map((o) => o.outcome)).toEqual(['erased']);
    expect(await storage.memory.written(`${runId}-fact`)).toBeUndefined();
    expect(await storage.memory.working(subject)).toBeUndefined();
    await checkpoint();
    const files = await databaseFiles();
    // The memory tables were rewritten (VACUUM FULL); the write-ahead log is not rewritten in place (docs/memory.md says so).
    expect(filesHolding(files.dir, 'Zyxwvut', files.isLog)).toEqual([]);
    const after = await journal.events(runId);
    expect(JSON.stringify(after)).not.toContain('Quintessa');
    expect(JSON.stringify(after)).not.toContain('Analytical');
    expect(after.find((e) => e.type === 'workflow-event')).toMatchObject({ name: 'reply', by: 'desk', payload: ERASED_TEXT });
    expect(after.find((e) => e.type === 'run-complete')).toMatchObject({ output: ERASED_TEXT });
    await expect(invoke()).rejects.toBeInstanceOf(RunErasedError);
  }, 60_000);

  // Postgres only: PGlite has one session. A transaction that began before the erasure, anywhere on the
  // server (here another database, holding a transaction id and no snapshot), is in VACUUM FULL's own
  // snapshot: the rewrite would copy the deleted rows as "recently dead" (the last CI's failure here).
  if (target.name === 'postgres')
    it('the rewrite waits for a transaction begun before the erasure in another database: the erased memory is in no file after it', async () => {
      const subject = `customer:${uniqueRunId('held')}`;
      await storage.memory.add({ resource: subject, key: `${subject}-fact`, items: [{ kind: 'fact', text: 'Qwxyzzy prefers letters' }] });
      const elsewhere = postgres(DATABASE_URL as string, { max: 1, onnotice: () => {} });
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let began = () => {};
      const holding = new Promise<void>((resolve) => {
        began = resolve;
      });
      const held = elsewhere.begin(async (tx) => {
        await tx`select txid_current()`;
        began();
        await released;
      });
      try {
        await holding;
        const erasing = storage.erasure.erase({ subject, by: 'dpo@acme', reason: 'request #884' });
        setTimeout(release, 1_500);
        expect((await erasing).map((o) => o.outcome)).toEqual([]);
        await held;
        expect(await storage.memory.written(`${subject}-fact`)).toBeUndefined();
        await checkpoint();
        const files = await databaseFiles();
        expect(filesHolding(files.dir, 'Qwxyzzy', files.isLog)).toEqual([]);
      } finally {
        release();
        await held.catch(() => {});
        await elsewhere.end();
      }
    }, 60_000);

  it('a resource’s memory alone is erased (gnl memory erase): its rows go, the rewritten tables hold none of its text, another resource’s stays', async () => {
    const resource = `customer:${uniqueRunId('mem-only')}`;
    const other = `customer:${uniqueRunId('mem-other')}`;
    await storage.memory.add({ resource, key: `${resource}-fact`, items: [{ kind: 'fact', text: 'Xylofonn lives on Elm Street' }] });
    await storage.memory.writeWorking({ resource, expectedVersion: 0, value: { secretWord: 'Xylofonn' }, by: 'agent', key: `${resource}-w` });
    await storage.memory.add({ resource: other, key: `${other}-fact`, items: [{ kind: 'fact', text: 'kept' }] });
    expect(await storage.erasure.eraseMemory(resource)).toEqual({ items: 1, versions: 1 });
    expect(await storage.memory.working(resource)).toBeUndefined();
    expect(await storage.memory.items({ resource, limit: 10 })).toEqual([]);
    expect((await storage.memory.items({ resource: other, limit: 10 })).map((i) => i.text)).toEqual(['kept']);
    await checkpoint();
    const files = await databaseFiles();
    expect(filesHolding(files.dir, 'Xylofonn', files.isLog)).toEqual([]);
    expect(await storage.erasure.eraseMemory(resource)).toEqual({ items: 0, versions: 0 });
  }, 60_000);

  it('refused, naming why: a run that does not exist, a request without by or reason, or naming both runs and a subject', async () => {
    expect(await storage.erasure.erase({ runIds: ['no-such-run'], by: 'dpo@acme', reason: 'r' })).toEqual([
      { runId: 'no-such-run', outcome: 'refused', why: 'no run has this id in this journal' },
    ]);
    await expect(storage.erasure.erase({ runIds: ['a'], by: ' ', reason: 'r' })).rejects.toThrow(/who erases is required/);
    await expect(storage.erasure.erase({ runIds: ['a'], subject: 's', by: 'x', reason: 'r' })).rejects.toThrow(/not both/);
  });
});

describeEachJournal('erasure without run keys', (target) => {
  const { storage } = target.open();
  it('without a journal key there is nothing to erase with: a clear error', async () => {
    await expect(storage.erasure.erase({ runIds: ['r'], by: 'dpo@acme', reason: 'request' })).rejects.toSatisfy(
      (error: unknown) => JournalDataError.isInstance(error) && /set GNL_JOURNAL_KEY/.test((error as Error).message),
    );
  });
  it('with a journal key but run keys off, a run has no key of its own: refused, and its data reads as before', async () => {
    const secrets = { key: journalKeyFrom(randomBytes(32).toString('base64')), onClearText: () => {} };
    const keyed =
      target.name === 'pglite'
        ? new PGliteStorage({ dataDir: tempDataDir(), secrets })
        : new PostgresStorage({ connectionString: DATABASE_URL as string, secrets });
    try {
      const runId = uniqueRunId('no-run-key');
      const agent = refundAgent();
      await runDurable({ runId, journal: keyed.runs, model: scriptedModel(agent.script).model, tools: agent.tools, prompt: PROMPT });
      await keyed.runs.cancel({ runId, by: 'ops@acme', reason: 'withdrawn' });
      expect(await keyed.erasure.erase({ runIds: [runId], by: 'dpo@acme', reason: 'request' })).toEqual([
        { runId, outcome: 'refused', why: expect.stringContaining('recorded without a key of its own') },
      ]);
      expect((await keyed.runs.getRun(runId))?.input.prompt).toBe(PROMPT);
    } finally {
      await keyed.close();
    }
  }, 300_000);
});
