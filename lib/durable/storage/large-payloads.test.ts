/**
 * Large payloads on both real journals (docs/large-payloads.md): values over 64 KiB leave the event
 * row for gnl.payloads, by SHA-256, in the same statement; what comes back is what went in, a resume
 * never calls the model for a recorded step, the same value is stored once, a big secret stays
 * sealed, and the stored values are append-only. Rows are counted with raw SQL.
 */
import { createHash, randomBytes } from 'node:crypto';
import { tool } from 'ai';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import { journalKeyFrom, MAX_EVENT_BYTES, runDurable } from '../internal';
import { BLOB_THRESHOLD_BYTES } from './payload-blobs';
import { PGliteStorage } from './pglite-storage';
import { PostgresStorage } from './postgres-storage';
import { query, type TransactionalDb } from './sql-rows';
import { DATABASE_URL, tempDataDir } from '@/tests/support/journals';

const MiB = 1024 * 1024;
const LONG = 600_000;

/** The largest event row of a run, and the stored values its events name. */
async function stored(db: TransactionalDb, runId: string) {
  const [row] = await query<{ largest: number | string; blobs: string[] | null; input: number | string }>(
    db,
    sql`select (select max(octet_length(payload::text) + coalesce(octet_length(answer::text), 0)) from gnl.run_events where run_id = ${runId}) as largest,
               (select array_agg(distinct h) from gnl.run_events, unnest(blobs) as h where run_id = ${runId}) as blobs,
               (select octet_length(input::text) from gnl.runs where run_id = ${runId}) as input`,
  );
  return { largest: Number(row?.largest), blobs: row?.blobs ?? [], input: Number(row?.input) };
}

async function payloadRows(db: TransactionalDb, hashes: readonly string[]) {
  const [row] = await query<{ n: number | string }>(
    db,
    sql`select count(*) as n from gnl.payloads where hash in (select jsonb_array_elements_text(${JSON.stringify(hashes)}::jsonb))`,
  );
  return Number(row?.n);
}

/** Deep-equal, with the bytes compared as one buffer (an element-by-element diff of 1.2 M bytes takes vitest seconds). */
function expectSameMessages(actual: unknown, expected: { content: { type: string; image?: Uint8Array }[] }[]) {
  const images: Uint8Array[] = [];
  const withoutBytes = (value: unknown) =>
    JSON.stringify(value, (_key, item) => {
      if (!(item instanceof Uint8Array)) return item;
      images.push(item);
      return `[${item.constructor.name} ${item.byteLength}]`;
    });
  expect(JSON.parse(withoutBytes(actual) ?? 'null')).toEqual(JSON.parse(withoutBytes(expected) ?? 'null'));
  const [got, want] = images;
  expect(images).toHaveLength(2);
  expect(got?.constructor).toBe(Uint8Array);
  expect(Buffer.from(got as Uint8Array).equals(Buffer.from(want as Uint8Array))).toBe(true);
}

const readOnly = (output: () => unknown, counter = { calls: 0 }, needsApproval = false) =>
  tool({
    inputSchema: z.object({ q: z.string() }),
    ...(needsApproval ? { needsApproval: true } : {}),
    execute: async () => {
      counter.calls += 1;
      return output();
    },
  });

const callThenAnswer =
  (toolName: string, text = 'done') =>
  (step: number) =>
    step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName, input: { q: 'x' } }] } : { text };

describeEachJournal('large payloads', (target) => {
  const { journal, storage } = target.open();
  let db: TransactionalDb;
  beforeAll(async () => {
    db = await storage.database();
  }, 300_000);

  it(
    'a run started with a 1.2 MB image in its messages completes and resumes; the resumed model call sees the image; the rows stay small',
    async () => {
      const image = new Uint8Array(randomBytes(1_200_000));
      const messages = [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'What is on this receipt?' },
            { type: 'image' as const, image },
          ],
        },
      ];
      const runId = uniqueRunId();
      const look = readOnly(() => ({ total: 40 }), { calls: 0 }, true);
      const first = scriptedModel(callThenAnswer('look', 'A receipt for 40.'));
      expect(await runDurable({ runId, journal, model: first.model, tools: { look }, messages })).toMatchObject({ status: 'waiting-approval' });
      await journal.approve({ runId, toolCallId: 'c1', by: 'alice@acme' });
      const again = scriptedModel(callThenAnswer('look', 'A receipt for 40.'));
      const result = await runDurable({ runId, journal, model: again.model, tools: { look }, messages });
      expect(result).toMatchObject({ status: 'completed', text: 'A receipt for 40.', replayedSteps: 1 });
      expect(first.calls() + again.calls()).toBe(2);
      // The step the resume asked for carries the image, byte for byte.
      const user = (again.prompts[0] as { role: string; content: { type: string; data?: unknown }[] }[]).find((m) => m.role === 'user');
      const file = user?.content.find((part) => part.type === 'file');
      const data = file?.data as Uint8Array | string | { type: 'data'; data: Uint8Array | string } | undefined;
      const bytes = typeof data === 'object' && data !== null && 'type' in data ? data.data : data;
      expect(typeof bytes === 'string' ? bytes : Buffer.from(bytes ?? []).toString('base64')).toBe(Buffer.from(image).toString('base64'));
      const start = (await journal.events(runId))[0];
      expectSameMessages(start?.type === 'run-start' ? start.input.messages : undefined, messages);
      expectSameMessages((await journal.getRun(runId))?.input.messages, messages);
      const rows = await stored(db, runId);
      expect(rows.largest).toBeLessThan(BLOB_THRESHOLD_BYTES);
      expect(rows.input).toBeLessThan(BLOB_THRESHOLD_BYTES);
      expect(rows.blobs).toHaveLength(1);
      // A listing shows the image as a placeholder instead of fetching it.
      const listed = (await journal.listRuns({ limit: 500 })).runs.find((run) => run.runId === runId);
      expect(JSON.stringify(listed?.input.messages)).toMatch(/\[1\.5 MiB stored apart, sha256 [0-9a-f]{12}…\]/);
    },
    LONG,
  );

  it(
    'a model answer of 3 MB is recorded once and replayed without calling the model again',
    async () => {
      const text = randomBytes(2_250_000).toString('base64'); // 3 MB
      const runId = uniqueRunId();
      const first = scriptedModel(() => ({ text }));
      const done = await runDurable({ runId, journal, model: first.model, prompt: 'Write it all.' });
      expect(done).toMatchObject({ status: 'completed', text });
      const replay = scriptedModel(() => ({ text: 'something else' }));
      const replayed = await runDurable({ runId, journal, model: replay.model, prompt: 'Write it all.' });
      expect(replayed).toMatchObject({ status: 'completed', text, replayedSteps: 1 });
      expect([first.calls(), replay.calls()]).toEqual([1, 0]);
      const rows = await stored(db, runId);
      expect(rows.largest).toBeLessThan(BLOB_THRESHOLD_BYTES);
      // The step and the run's completion name the same text: one stored value.
      expect(rows.blobs).toHaveLength(1);
      expect(await payloadRows(db, rows.blobs)).toBe(1);
    },
    LONG,
  );

  it(
    'a model answer over MAX_EVENT_BYTES fails the run and is recorded as refused: the next resume fails the same way without calling the model',
    async () => {
      const runId = uniqueRunId();
      const first = scriptedModel(() => ({ text: 'x'.repeat(MAX_EVENT_BYTES + MiB) }));
      const refused = {
        name: 'JournalDataError',
        tooLarge: { eventType: 'model-step', limit: MAX_EVENT_BYTES, bytes: expect.any(Number) },
        message: expect.stringMatching(/answer to step 0 was 129 MiB, over the journal's limit of 128 MiB per event .* not asked again: restart the run/),
      };
      await expect(runDurable({ runId, journal, model: first.model, prompt: 'Write it all.' })).rejects.toMatchObject(refused);
      const again = scriptedModel(() => ({ text: 'short' }));
      await expect(runDurable({ runId, journal, model: again.model, prompt: 'Write it all.' })).rejects.toMatchObject(refused);
      expect([first.calls(), again.calls()]).toEqual([1, 0]);
      const events = await journal.events(runId);
      expect(events.map((e) => e.type)).toEqual(['run-start', 'model-step', 'run-fail', 'run-resume', 'run-fail']);
      expect(events[1]).toMatchObject({ result: { gnlRefused: { limit: MAX_EVENT_BYTES } } });
      expect((await journal.getRun(runId))?.status).toBe('failed');
      expect((await stored(db, runId)).largest).toBeLessThan(BLOB_THRESHOLD_BYTES);
    },
    LONG,
  );

  it(
    'a 64 MiB tool output round-trips: recorded, replayed to the model on resume, read back equal',
    async () => {
      const page = randomBytes(48 * MiB).toString('base64'); // 64 MiB of text that does not compress
      const runId = uniqueRunId();
      const counter = { calls: 0 };
      const fetchPage = readOnly(() => ({ page }), counter);
      const model = scriptedModel(callThenAnswer('fetchPage'));
      expect(await runDurable({ runId, journal, model: model.model, tools: { fetchPage }, prompt: 'x' })).toMatchObject({ status: 'completed' });
      const end = (await journal.events(runId)).find((e) => e.type === 'tool-call-end');
      expect(end?.type === 'tool-call-end' && (end.output as { page: string }).page === page).toBe(true);
      const replay = scriptedModel(callThenAnswer('fetchPage'));
      expect(await runDurable({ runId, journal, model: replay.model, tools: { fetchPage }, prompt: 'x' })).toMatchObject({
        status: 'completed',
        replayedSteps: 2,
      });
      expect(counter.calls).toBe(1);
      expect(replay.calls()).toBe(0);
      const rows = await stored(db, runId);
      expect(rows.largest).toBeLessThan(BLOB_THRESHOLD_BYTES);
      const [size] = await query<{ bytes: number | string }>(db, sql`select bytes from gnl.payloads where hash = ${rows.blobs[0] ?? ''}`);
      expect(Number(size?.bytes)).toBe(Buffer.byteLength(JSON.stringify(page)));
    },
    LONG,
  );

  it(
    'two runs with the same big value store it once, under the SHA-256 of its JSON',
    async () => {
      const report = randomBytes(300_000).toString('hex');
      const hash = createHash('sha256').update(JSON.stringify(report)).digest('hex');
      for (const runId of [uniqueRunId(), uniqueRunId()]) {
        const model = scriptedModel(callThenAnswer('read'));
        await runDurable({ runId, journal, model: model.model, tools: { read: readOnly(() => report) }, prompt: 'Read the report.' });
        expect((await stored(db, runId)).blobs).toEqual([hash]);
      }
      expect(await payloadRows(db, [hash])).toBe(1);
    },
    LONG,
  );

  it('the stored values are append-only: the database refuses to update, delete or truncate them', async () => {
    const runId = uniqueRunId();
    const model = scriptedModel(callThenAnswer('read'));
    await runDurable({ runId, journal, model: model.model, tools: { read: readOnly(() => 'z'.repeat(200_000)) }, prompt: 'x' });
    const [hash] = (await stored(db, runId)).blobs;
    for (const statement of [
      sql`update gnl.payloads set body = '"rewritten"'::jsonb where hash = ${hash ?? ''}`,
      sql`delete from gnl.payloads where hash = ${hash ?? ''}`,
      sql`truncate gnl.payloads`,
    ]) {
      const error = await db.execute(statement).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      // drizzle wraps the driver's error; the database's own message is the cause.
      expect(String((error?.cause as Error | undefined)?.message)).toMatch(/gnl\.payloads is append-only/);
    }
    expect(await payloadRows(db, [hash ?? ''])).toBe(1);
  });
});

describeEachJournal('large payloads with secrets', (target) => {
  const key = journalKeyFrom(randomBytes(32).toString('base64'));
  const secrets = { key, onClearText: () => {} };
  const dataDir = tempDataDir();
  let storage: PGliteStorage | PostgresStorage;
  // Built here, not while collecting: without DATABASE_URL the Postgres suite is collected but skipped.
  beforeAll(async () => {
    storage = target.name === 'pglite' ? new PGliteStorage({ dataDir, secrets }) : new PostgresStorage({ connectionString: DATABASE_URL as string, secrets });
    await storage.database();
  }, 300_000);
  afterAll(() => storage.close());

  it(
    'a big secret is sealed before it is cut out: the stored value holds only ciphertext, and the run reads it back in clear',
    async () => {
      const apiKey = `sk-proj-${randomBytes(150_000).toString('hex')}`;
      const runId = uniqueRunId();
      const model = scriptedModel(callThenAnswer('issue'));
      const issue = readOnly(() => ({ apiKey, note: 'issued' }));
      await runDurable({ runId, journal: storage.runs, model: model.model, tools: { issue }, prompt: 'Issue a key.' });
      const db = await storage.database();
      const rows = await stored(db, runId);
      // The tool's output, and the run-complete's answer (completed-result.ts) holding it twice: as the step's
      // tool result and in its response messages. Each sealed on its own, so each its own ciphertext.
      expect(rows.blobs).toHaveLength(3);
      for (const hash of rows.blobs) {
        const [body] = await query<{ body: string }>(db, sql`select body::text as body from gnl.payloads where hash = ${hash}`);
        expect(body?.body.length).toBeGreaterThan(300_000);
        expect(body?.body).not.toContain(apiKey.slice(8, 40));
      }
      const [events] = await query<{ text: string }>(
        db,
        sql`select string_agg(payload::text || coalesce(answer::text, ''), '') as text from gnl.run_events where run_id = ${runId}`,
      );
      expect(events?.text).not.toContain(apiKey.slice(8, 40));
      const end = (await storage.runs.events(runId)).find((e) => e.type === 'tool-call-end');
      expect(end?.type === 'tool-call-end' && end.output).toEqual({ apiKey, note: 'issued' });
    },
    LONG,
  );
});
