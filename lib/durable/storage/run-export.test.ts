/**
 * Export and import of a run (run-export.ts, Journal.importRun), on both real journals: a run moved to
 * another journal with another key reads back identical through the journal's own reads (events, sequence
 * numbers, times, the summary), a value stored apart travels inline, secrets are redacted unless
 * revealed, a bad line is refused by its number with nothing written, a taken id is refused, `--as`
 * renames the run and keeps its recorded keys, and a redacted import is evidence only: canceled.
 */
import { randomBytes } from 'node:crypto';
import { tool } from 'ai';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { DATABASE_URL, describeEachJournal, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import {
  DecisionConflictError,
  exportRun,
  exportText,
  gnlTool,
  journalKeyFrom,
  type LiveJournal,
  parseRunExport,
  planImport,
  REDACTED,
  RunTransferError,
  runDurable,
} from '../internal';
import { PGliteStorage } from './pglite-storage';
import { PostgresStorage } from './postgres-storage';
import { query } from './sql-rows';

const API_KEY = 'sk-proj-Zq81mN0pLkR7sT2vW9xY4bC6dE3fG5hJ';
const INPUT = { apiKey: API_KEY, amount: 40 };
/** Over 64 KiB: stored apart in gnl.payloads (docs/large-payloads.md). */
const BIG = 'scan-of-the-receipt:'.padEnd(80_000, 'x');

function chargeAgent(options: { needsApproval?: boolean }) {
  const executed: unknown[] = [];
  const charge = gnlTool(
    tool({
      inputSchema: z.object({ apiKey: z.string(), amount: z.number() }),
      ...(options.needsApproval ? { needsApproval: true } : {}),
      execute: async (input) => {
        executed.push(input);
        return { charged: input.amount, receipt: BIG };
      },
    }),
    { sideEffect: true, idempotency: 'args' },
  );
  const scripted = scriptedModel((step) =>
    step === 0 ? { toolCalls: [{ toolCallId: 'call-charge', toolName: 'charge', input: INPUT }] } : { text: 'Charged.' },
  );
  return { tools: { charge }, model: scripted.model, executed };
}

describeEachJournal('run export and import', (target) => {
  // Two journals with keys of their own (a source environment and a target one): PGlite folders, or
  // Postgres databases of their own, so runs sealed with these throwaway keys reach no other suite.
  const storages: (PGliteStorage | PostgresStorage)[] = [];
  const databases: { drop(): Promise<void> }[] = [];
  let source: LiveJournal;
  let targetJournal: LiveJournal;
  let targetStorage: PGliteStorage | PostgresStorage;
  const open = async () => {
    const secrets = { key: journalKeyFrom(randomBytes(32).toString('base64')), onClearText: () => {} };
    let storage: PGliteStorage | PostgresStorage;
    if (target.name === 'pglite') storage = new PGliteStorage({ dataDir: tempDataDir(), secrets });
    else {
      const database = await createFreshDatabase(DATABASE_URL as string, 'gnl_export');
      databases.push(database);
      storage = new PostgresStorage({ connectionString: database.url, secrets });
    }
    storages.push(storage);
    await storage.database();
    return storage;
  };
  beforeAll(async () => {
    source = (await open()).runs;
    targetStorage = await open();
    targetJournal = targetStorage.runs;
  }, 300_000);
  afterAll(async () => {
    for (const storage of storages) await storage.close();
    for (const database of databases) await database.drop();
  });

  const completedRun = async () => {
    const runId = uniqueRunId('export');
    const agent = chargeAgent({});
    expect((await runDurable({ runId, journal: source, model: agent.model, tools: agent.tools, prompt: 'Charge 40' })).status).toBe('completed');
    return runId;
  };

  it('a revealed export imported into another journal reads back identical: events, seq, times, summary, keys', async () => {
    const runId = await completedRun();
    const text = exportText(await exportRun({ journal: source, runId, revealSecrets: true }));
    const parsed = parseRunExport(text);
    expect(parsed.header).toMatchObject({ format: 'gnl-run-export', version: 1, runId, status: 'completed', redacted: false });
    expect(text).toContain(API_KEY);
    expect(text).toContain(BIG); // stored apart in the source, inline in the file

    const plan = planImport({ parsed, by: 'alice@acme' });
    // Nothing but the mark of where it came from follows the events (a revealed export goes on as it was).
    expect(plan.then).toEqual([{ type: 'run-imported', from: { runId, exportedAt: parsed.header.exportedAt, redacted: false }, by: 'alice@acme' }]);
    await targetJournal.importRun(plan);

    const original = await source.events(runId);
    const imported = await targetJournal.events(runId);
    expect(imported.slice(0, original.length)).toEqual(original);
    expect(imported.slice(original.length)).toEqual([expect.objectContaining({ type: 'run-imported', seq: original.length + 1, by: 'alice@acme' })]);
    const [before, after] = [await source.getRun(runId), await targetJournal.getRun(runId)];
    // The same summary; only the mark's seq and time are the target's.
    expect({ ...after, lastSeq: before?.lastSeq, updatedAt: before?.updatedAt }).toEqual(before);
    expect(after?.lastSeq).toBe(original.length + 1);
    // The target sealed the secret with its own key and stored the big value apart again.
    const db = await targetStorage.database();
    const rows = await query<{ text: string; blobs: string[] | null }>(
      db,
      sql`select payload::text || coalesce(answer::text, '') as text, blobs from gnl.run_events where run_id = ${runId} order by seq`,
    );
    for (const row of rows) expect(row.text).not.toContain(API_KEY);
    expect(rows.some((row) => row.blobs !== null)).toBe(true);
    // Exported again from the target: the same lines, and the mark after them.
    const again = await exportRun({ journal: targetJournal, runId, revealSecrets: true });
    const lines = text.trimEnd().split('\n').slice(1);
    expect(again.lines.slice(1, lines.length + 1)).toEqual(lines);
    expect(again.lines.slice(lines.length + 1)).toEqual([expect.stringContaining('"type":"run-imported"')]);
  });

  it('redacts every secret by default, as the Studio shows them: no byte of the plaintext in the file', async () => {
    const runId = await completedRun();
    const exported = await exportRun({ journal: source, runId });
    const text = exportText(exported);
    expect(exported.header.redacted).toBe(true);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(API_KEY.slice(8));
    expect(text).toContain(REDACTED);
    expect(text).toContain('"amount":40');
    expect(text).toContain(BIG);
  });

  it('a secret in a Map of an output (a secret-named key) is redacted in the file; a revealed export carries the Map whole', async () => {
    const runId = uniqueRunId('export');
    const output = new Map<string, unknown>([
      ['password', 'pw-in-a-map-5b7d'],
      ['user', 'ada'],
    ]);
    const vault = gnlTool(tool({ inputSchema: z.object({}), execute: async () => output, toModelOutput: () => ({ type: 'text', value: 'read' }) }), {
      sideEffect: true,
    });
    const scripted = scriptedModel((step) => (step === 0 ? { toolCalls: [{ toolCallId: 'call-vault', toolName: 'vault', input: {} }] } : { text: 'Read.' }));
    expect((await runDurable({ runId, journal: source, model: scripted.model, tools: { vault }, prompt: 'Read' })).status).toBe('completed');
    const redacted = exportText(await exportRun({ journal: source, runId }));
    expect(redacted).not.toContain('pw-in-a-map-5b7d');
    expect(redacted).toContain('"ada"');
    const revealed = exportText(await exportRun({ journal: source, runId, revealSecrets: true }));
    expect(revealed).toContain('pw-in-a-map-5b7d');
  });

  it('a redacted export of a waiting run is imported as evidence: canceled, nothing can be decided or executed', async () => {
    const runId = uniqueRunId('export');
    const agent = chargeAgent({ needsApproval: true });
    expect((await runDurable({ runId, journal: source, model: agent.model, tools: agent.tools, prompt: 'Charge 40' })).status).toBe('waiting-approval');
    const parsed = parseRunExport(exportText(await exportRun({ journal: source, runId })));
    const plan = planImport({ parsed, by: 'alice@acme', runId: `${runId}-evidence` });
    expect(plan.evidence).toBe(true);
    const recorded = await targetJournal.importRun(plan);
    const newId = `${runId}-evidence`;
    expect(recorded.map((event) => event.type)).toEqual(['run-start', 'model-step', 'tool-approval-request', 'run-suspend', 'run-imported', 'run-cancel']);
    expect((await targetJournal.getRun(newId))?.status).toBe('canceled');
    const approve = await targetJournal.approve({ runId: newId, toolCallId: 'call-charge', by: 'bob@acme' }).catch((error: unknown) => error);
    expect(DecisionConflictError.isInstance(approve)).toBe(true);
    const again = chargeAgent({ needsApproval: true });
    await runDurable({ runId: newId, journal: targetJournal, model: again.model, tools: again.tools, prompt: 'Charge 40' }).catch(() => undefined);
    expect(again.executed).toEqual([]);
  });

  it('--as imports under a new id: recorded idempotency keys stay as recorded, the original run id is refused', async () => {
    const runId = await completedRun();
    const parsed = parseRunExport(exportText(await exportRun({ journal: source, runId, revealSecrets: true })));
    const refused = await source.importRun(planImport({ parsed, by: 'alice@acme' })).catch((error: unknown) => error);
    expect(RunTransferError.isInstance(refused) && refused.reason).toBe('run-exists');
    expect(await source.events(runId)).toHaveLength(parsed.events.length);

    const newId = `${runId}-copy`;
    await source.importRun(planImport({ parsed, by: 'alice@acme', runId: newId }));
    const keysOf = async (id: string) => (await source.events(id)).flatMap((event) => ('idempotencyKey' in event ? [event.idempotencyKey] : []));
    expect(await keysOf(newId)).toEqual(await keysOf(runId));
    expect((await keysOf(newId)).length).toBeGreaterThan(0);
    // Resumed under its new id, the recorded call is replayed, never executed again.
    const agent = chargeAgent({});
    expect((await runDurable({ runId: newId, journal: source, model: agent.model, tools: agent.tools, prompt: 'Charge 40' })).status).toBe('completed');
    expect(agent.executed).toEqual([]);
  });

  it('a waiting run imported under another id is the exported run’s job: the call approved in both goes out under one key', async () => {
    const runId = uniqueRunId('export');
    const original = chargeAgent({ needsApproval: true });
    expect((await runDurable({ runId, journal: source, model: original.model, tools: original.tools, prompt: 'Charge 40' })).status).toBe('waiting-approval');
    const parsed = parseRunExport(exportText(await exportRun({ journal: source, runId, revealSecrets: true })));
    const newId = `${runId}-moved`;
    await targetJournal.importRun(planImport({ parsed, by: 'alice@acme', runId: newId }));
    const copy = chargeAgent({ needsApproval: true });
    for (const [journal, id, agent] of [
      [source, runId, original],
      [targetJournal, newId, copy],
    ] as const) {
      await journal.approve({ runId: id, toolCallId: 'call-charge', by: 'bob@acme' });
      expect((await runDurable({ runId: id, journal, model: agent.model, tools: agent.tools, prompt: 'Charge 40' })).status).toBe('completed');
    }
    const keyOf = async (journal: LiveJournal, id: string) =>
      (await journal.events(id)).flatMap((event) => (event.type === 'tool-call-start' ? [event.idempotencyKey] : []));
    expect(await keyOf(targetJournal, newId)).toEqual(await keyOf(source, runId));
    expect(await keyOf(source, runId)).toHaveLength(1);
  });

  it('a bad line is refused by its number and what is wrong, and nothing is written', async () => {
    const runId = await completedRun();
    const lines = exportText(await exportRun({ journal: source, runId }))
      .trimEnd()
      .split('\n');
    const newId = `${runId}-bad`;
    const attempt = (edited: string[]) => {
      try {
        const parsed = parseRunExport(`${edited.join('\n')}\n`);
        return targetJournal.importRun(planImport({ parsed, by: 'alice@acme', runId: newId })).then(
          () => undefined,
          (error: unknown) => error,
        );
      } catch (error) {
        return Promise.resolve(error);
      }
    };
    const notJson = await attempt(lines.map((line, i) => (i === 2 ? `${line.slice(0, 20)}` : line)));
    expect(notJson).toMatchObject({ reason: 'invalid-line', line: 3 });
    expect((notJson as Error).message).toMatch(/^line 3: not JSON/);

    const offSchema = lines.map((line, i) => {
      if (i !== 3) return line;
      const event = JSON.parse(line);
      delete event.payload.toolName;
      return JSON.stringify(event);
    });
    const refused = await attempt(offSchema);
    expect(refused).toMatchObject({ reason: 'invalid-line', line: 4 });
    expect((refused as Error).message).toContain('toolName');

    const edited = lines.map((line, i) => (i === 1 ? line.replace('Charge 40', 'Charge 4000') : line));
    expect(edited[1]).not.toBe(lines[1]);
    expect(await attempt(edited)).toMatchObject({ reason: 'invalid-line', line: 1 });
    expect(await attempt(lines.slice(0, -1))).toMatchObject({ reason: 'invalid-line' });
    expect(await targetJournal.getRun(newId)).toBeUndefined();
    expect(await targetJournal.events(newId)).toEqual([]);
  });

  it('exporting a run that does not exist is a clear error', async () => {
    const missing = await exportRun({ journal: source, runId: uniqueRunId('missing') }).catch((error: unknown) => error);
    expect(RunTransferError.isInstance(missing) && missing.reason).toBe('unknown-run');
  });
});
