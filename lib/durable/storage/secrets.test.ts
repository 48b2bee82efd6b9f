/**
 * Secrets in the journal, on both real journals: the database never holds the plaintext (raw SQL over
 * run_events and runs), while the runtime gets the real value back (an approved call on resume, a
 * not-done rerun), 'args' idempotency keys come from the plaintext, and a missing or wrong key is a
 * clear error naming the field.
 */
import { randomBytes } from 'node:crypto';
import { tool } from 'ai';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { DATABASE_URL, describeEachJournal, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import { gnlTool, idempotencyKey, JournalDataError, journalKeyFrom, type JournalKey, runDurable, SideEffectRetryBlockedError } from '../internal';
import { PGliteStorage } from './pglite-storage';
import { PostgresStorage } from './postgres-storage';
import { query } from './sql-rows';
import { secretsFromEnv } from './storage-from-env';

const API_KEY = 'sk-proj-Zq81mN0pLkR7sT2vW9xY4bC6dE3fG5hJ';
const INPUT = { apiKey: API_KEY, amount: 40 };

function chargeAgent(options: { needsApproval?: boolean; failFirst?: boolean }) {
  const received: { input: { apiKey: string; amount: number }; idempotencyKey: string | undefined }[] = [];
  let fail = options.failFirst === true;
  const charge = gnlTool(
    tool({
      inputSchema: z.object({ apiKey: z.string(), amount: z.number() }),
      ...(options.needsApproval ? { needsApproval: true } : {}),
      execute: async (input, context) => {
        received.push({ input, idempotencyKey: (context as { idempotencyKey?: string }).idempotencyKey });
        if (fail) {
          fail = false;
          throw new Error('connection reset by the payment service');
        }
        return { charged: input.amount, receipt: 'rc_1' };
      },
    }),
    { sideEffect: true, idempotency: 'args' },
  );
  const scripted = scriptedModel((step) =>
    step === 0 ? { toolCalls: [{ toolCallId: 'call-charge', toolName: 'charge', input: INPUT }] } : { text: 'Charged.' },
  );
  return { tools: { charge }, scripted, received };
}

describeEachJournal('secrets in the journal', (target) => {
  const key = journalKeyFrom(randomBytes(32).toString('base64'));
  const dataDir = tempDataDir();
  // Postgres: a database of its own, so runs sealed with this suite's throwaway key never reach another suite's listings.
  let database: { url: string; drop(): Promise<void> } | undefined;
  beforeAll(async () => {
    if (target.name === 'postgres') database = await createFreshDatabase(DATABASE_URL as string, 'gnl_secrets');
    await keyed().database(); // migrated before the first test (PGlite's first start is slow on a loaded machine)
  }, 300_000);
  const open = (journalKey: JournalKey | undefined) => {
    const secrets = { ...(journalKey ? { key: journalKey } : {}), onClearText: () => {} };
    return target.name === 'pglite'
      ? new PGliteStorage({ dataDir, secrets })
      : new PostgresStorage({ connectionString: (database as { url: string }).url, secrets });
  };
  // PGlite serves one storage per folder per process: the keyed storage is closed before another opens the folder.
  let keyedStorage: PGliteStorage | PostgresStorage | undefined;
  const keyed = () => {
    keyedStorage ??= open(key);
    return keyedStorage;
  };
  afterAll(async () => {
    await keyedStorage?.close();
    await database?.drop();
  });

  const stored = async (runId: string) => {
    const db = await keyed().database();
    const events = await query<{ seq: number; type: string; text: string }>(
      db,
      sql`select seq, type, payload::text || coalesce(answer::text, '') as text from gnl.run_events where run_id = ${runId} order by seq`,
    );
    const [run] = await query<{ text: string }>(db, sql`select input::text || pending::text as text from gnl.runs where run_id = ${runId}`);
    return { events, run: run?.text ?? '' };
  };

  it('an approved call on resume gets the real apiKey; the database holds only envelopes', async () => {
    const runId = uniqueRunId('secrets');
    const journal = keyed().runs;
    const agent = chargeAgent({ needsApproval: true });
    const call = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Charge 40' });
    const first = await call();
    expect(first).toMatchObject({ status: 'waiting-approval', pending: [{ toolCallId: 'call-charge', input: INPUT }] });

    const waiting = await stored(runId);
    expect(waiting.events.map((e) => e.type)).toEqual(['run-start', 'model-step', 'tool-approval-request', 'run-suspend']);
    for (const event of waiting.events) expect(event.text, `#${event.seq} ${event.type}`).not.toContain(API_KEY);
    expect(waiting.run).toContain('"amount": 40');
    expect(waiting.run).not.toContain(API_KEY);
    expect(waiting.events.find((e) => e.type === 'tool-approval-request')?.text).toMatch(/"apiKey": \{"\$gnl:enc": "v1:[0-9a-f]{8}:/);

    // Reading through the journal gives the plaintext back.
    expect((await journal.getRun(runId))?.pending).toEqual([expect.objectContaining({ input: INPUT })]);

    await journal.approve({ runId, toolCallId: 'call-charge', by: 'alice@acme' });
    const done = await call();
    expect(done.status).toBe('completed');
    expect(agent.received).toEqual([{ input: INPUT, idempotencyKey: idempotencyKey({ kind: 'args', runId, toolName: 'charge', input: INPUT }) }]);

    const after = await stored(runId);
    expect(after.events.map((e) => e.type)).toContain('tool-call-end');
    for (const event of after.events) expect(event.text, `#${event.seq} ${event.type}`).not.toContain(API_KEY);
    expect(after.run).not.toContain(API_KEY);
    const events = await journal.events(runId);
    expect(events.find((e) => e.type === 'tool-call-start')).toMatchObject({ input: INPUT });
  });

  it("a not-done rerun hands the tool the real apiKey again, under the same 'args' key as the plaintext gives", async () => {
    const runId = uniqueRunId('secrets');
    const journal = keyed().runs;
    const agent = chargeAgent({ failFirst: true });
    const call = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Charge 40' });
    await call().catch(() => undefined); // execute threw: the outcome is unknown
    const blocked = await call().catch((error: unknown) => error);
    expect(SideEffectRetryBlockedError.isInstance(blocked)).toBe(true);
    expect(blocked).toMatchObject({ input: INPUT });
    await journal.resolveSideEffect({ runId, toolCallId: 'call-charge', outcome: 'not-done', by: 'ops@acme', reason: 'not in the PSP' });
    expect((await call()).status).toBe('completed');

    const key = idempotencyKey({ kind: 'args', runId, toolName: 'charge', input: INPUT });
    expect(agent.received).toEqual([
      { input: INPUT, idempotencyKey: key },
      { input: INPUT, idempotencyKey: key },
    ]);
    const after = await stored(runId);
    expect(after.events.map((e) => e.type)).toContain('side-effect-resolution');
    for (const event of after.events) expect(event.text, `#${event.seq} ${event.type}`).not.toContain(API_KEY);
    expect(after.run).not.toContain(API_KEY);
  });

  it('secrets inside a Map or a Set in a tool output are sealed (a secret-named key, a field of a value, an API key as an item) and read back as they were', async () => {
    const runId = uniqueRunId('secrets');
    const journal = keyed().runs;
    const output = {
      byName: new Map<unknown, unknown>([
        ['password', 'pw-map-key-3c1d'],
        ['account', { iban: 'x', apiKey: 'ak-map-field-8e2f' }],
      ]),
      tokens: new Set([API_KEY, 'not a secret']),
    };
    const vault = gnlTool(tool({ inputSchema: z.object({}), execute: async () => output, toModelOutput: () => ({ type: 'text', value: 'read' }) }), {
      sideEffect: true,
    });
    const scripted = scriptedModel((step) => (step === 0 ? { toolCalls: [{ toolCallId: 'call-vault', toolName: 'vault', input: {} }] } : { text: 'Read.' }));
    expect((await runDurable({ runId, journal, model: scripted.model, tools: { vault }, prompt: 'Read the vault' })).status).toBe('completed');
    const rows = await stored(runId);
    for (const secret of ['pw-map-key-3c1d', 'ak-map-field-8e2f', API_KEY]) {
      for (const event of rows.events) expect(event.text, `${event.type} #${event.seq}`).not.toContain(secret);
    }
    const end = (await journal.events(runId)).find((event) => event.type === 'tool-call-end');
    expect((end as { output: unknown }).output).toEqual(output);
  });

  it("an operator's mark-done output with a secret is sealed too, and the model gets it in clear", async () => {
    const runId = uniqueRunId('secrets');
    const journal = keyed().runs;
    const agent = chargeAgent({ failFirst: true });
    const call = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Charge 40' });
    await call().catch(() => undefined);
    await call().catch(() => undefined);
    await journal.resolveSideEffect({
      runId,
      toolCallId: 'call-charge',
      outcome: 'done',
      output: { receipt: 'rc_9', token: 'tok-operator-typed-9f8e7d' },
      by: 'ops@acme',
    });
    expect((await call()).status).toBe('completed');
    expect(JSON.stringify(agent.scripted.prompts.at(-1))).toContain('tok-operator-typed-9f8e7d');
    for (const event of (await stored(runId)).events) expect(event.text).not.toContain('tok-operator-typed-9f8e7d');
  });

  it('a provided tool result with a secret is sealed, and so is the input of the call that waits for it; the journal reads both in clear', async () => {
    const runId = uniqueRunId('secrets');
    const journal = keyed().runs;
    const hold = await journal.hold(runId);
    await hold.create({ prompt: 'Charge 40', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['charge'] });
    const waiting = { kind: 'tool-result' as const, toolCallId: 'call-charge', toolName: 'charge', input: INPUT, requestedAt: new Date().toISOString() };
    await hold.append([{ type: 'run-suspend', status: 'waiting-tool-result', pending: [{ ...waiting, idempotencyKey: 'k' }] }]);
    await hold.release();
    const output = { receipt: 'rc_7', token: 'tok-provided-by-browser-4c3b2a' };
    await journal.provideToolResult({ runId, toolCallId: 'call-charge', output, by: 'ops@acme' });

    const raw = await stored(runId);
    for (const event of raw.events) {
      expect(event.text, `#${event.seq} ${event.type}`).not.toContain(API_KEY);
      expect(event.text, `#${event.seq} ${event.type}`).not.toContain('tok-provided-by-browser-4c3b2a');
    }
    expect(raw.run).not.toContain(API_KEY);
    expect((await journal.events(runId)).at(-1)).toMatchObject({ type: 'tool-call-end', source: 'provided', output });
    expect((await journal.getRun(runId))?.pending).toEqual([
      expect.objectContaining({ input: INPUT, decision: expect.objectContaining({ outcome: 'provided' }) }),
    ]);
  });

  it('reading with no key or another key is a clear error naming the run, the event and the field; deciding needs no key', async () => {
    const runId = uniqueRunId('secrets');
    const agent = chargeAgent({ needsApproval: true });
    await runDurable({ runId, journal: keyed().runs, model: agent.scripted.model, tools: agent.tools, prompt: 'Charge 40' });
    if (target.name === 'pglite') {
      await keyedStorage?.close(); // gives the folder to the next storage in this process
      keyedStorage = undefined;
    }
    const other = journalKeyFrom(randomBytes(32).toString('hex'));
    for (const [journalKey, message] of [
      [undefined, /no journal key is configured: set GNL_JOURNAL_KEY/],
      [other, new RegExp(`encrypted with journal key ${key.id}, but GNL_JOURNAL_KEY is key ${other.id}`)],
    ] as const) {
      const reader = open(journalKey);
      const error = await reader.runs.events(runId).catch((e: unknown) => e);
      expect(JournalDataError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(new RegExp(`run "${runId}" event #\\d+ \\((model-step|tool-approval-request)\\) `));
      expect((error as Error).message).toMatch(message);
      await expect(reader.runs.getRun(runId)).rejects.toThrow(/pending\[0\]\.input\.apiKey is encrypted/);
      if (journalKey === undefined) await reader.runs.approve({ runId, toolCallId: 'call-charge', by: 'alice@acme' });
      await reader.close();
    }
    // The approval written without the key left the sealed arguments intact: the keyed runtime runs the call with the real value.
    const result = await runDurable({ runId, journal: keyed().runs, model: agent.scripted.model, tools: agent.tools, prompt: 'Charge 40' });
    expect(result.status).toBe('completed');
    expect(agent.received.map((r) => r.input)).toEqual([INPUT]);
  });

  it('a key rotation: the run sealed with the old key resumes under the new one (GNL_JOURNAL_KEY_PREVIOUS holds the old); what it writes then is sealed with the new key', async () => {
    const runId = uniqueRunId('rotate');
    const agent = chargeAgent({ needsApproval: true });
    await runDurable({ runId, journal: keyed().runs, model: agent.scripted.model, tools: agent.tools, prompt: 'Charge 40' });
    await keyedStorage?.close(); // the old process stops; the new one starts with the rotated keys
    keyedStorage = undefined;
    const newKey = randomBytes(32).toString('base64');
    const rotatedSecrets = secretsFromEnv({ GNL_JOURNAL_KEY: newKey, GNL_JOURNAL_KEY_PREVIOUS: ` ${key.bytes.toString('hex')} ` });
    const rotated =
      target.name === 'pglite'
        ? new PGliteStorage({ dataDir, secrets: rotatedSecrets })
        : new PostgresStorage({ connectionString: (database as { url: string }).url, secrets: rotatedSecrets });
    try {
      await rotated.runs.approve({ runId, toolCallId: 'call-charge', by: 'alice@acme' });
      const result = await runDurable({ runId, journal: rotated.runs, model: agent.scripted.model, tools: agent.tools, prompt: 'Charge 40' });
      expect(result.status).toBe('completed');
      // The approved call ran with the real apiKey, opened with the previous key.
      expect(agent.received.map((r) => r.input.apiKey)).toEqual([API_KEY]);
      const db = await rotated.database();
      const rows = await query<{ seq: number; text: string }>(
        db,
        sql`select seq, payload::text || coalesce(answer::text, '') as text from gnl.run_events where run_id = ${runId} order by seq`,
      );
      const ids = (text: string) => [...text.matchAll(/"v1:([0-9a-f]{8}):/g)].map((m) => m[1]);
      const sealedBy = rows.flatMap((row) => ids(row.text).map((id) => ({ seq: row.seq, id })));
      const newId = journalKeyFrom(newKey).id;
      // Before the rotation: the old key; the call's start and end, written after it: the new one. Never in clear.
      expect(sealedBy.filter((s) => s.id === key.id).length).toBeGreaterThan(0);
      expect(sealedBy.filter((s) => s.id === newId).length).toBeGreaterThan(0);
      expect(Math.max(...sealedBy.filter((s) => s.id === key.id).map((s) => s.seq))).toBeLessThan(
        Math.min(...sealedBy.filter((s) => s.id === newId).map((s) => s.seq)),
      );
      for (const row of rows) expect(row.text).not.toContain(API_KEY);
      expect((await rotated.runs.events(runId)).length).toBe(rows.length);
    } finally {
      await rotated.close();
    }
    // A malformed previous key is refused at start, naming which one.
    expect(() => secretsFromEnv({ GNL_JOURNAL_KEY: newKey, GNL_JOURNAL_KEY_PREVIOUS: `${key.bytes.toString('hex')},nope` })).toThrow(
      /GNL_JOURNAL_KEY_PREVIOUS \(key 2\) must be 32 random bytes/,
    );
  });
});
