/**
 * The hot path, counted on the real drivers (tests/support/statement-log.ts): one statement, one round
 * trip and one commit per read-only tool call and two per side-effecting call (its start is durable
 * before execute); a new model step rides with the record that follows it (RunSession.defer), so it
 * costs none of its own; a resume reads the whole history in one query. The counts are printed so they
 * can be quoted.
 */
import { stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DATABASE_URL, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { type ScriptedStep, stepResult } from '@/tests/support/scripted-model';
import { StatementLog, countPGlite, countedPostgres } from '@/tests/support/statement-log';
import { gnlTool, type Journal, runDurable } from '../index';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { PGliteStorage, PostgresStorage } from './index';

/** Step 0 looks the order up (read-only), step 1 refunds it (side effect), step 2 answers; `lookups` more read-only steps first when asked. */
function countedAgent(log: StatementLog, lookups = 1) {
  const script = (step: number): ScriptedStep =>
    step < lookups
      ? { toolCalls: [{ toolCallId: `lookup-${step}`, toolName: 'lookupOrder', input: { orderId: 'o_17' } }] }
      : step === lookups
        ? { toolCalls: [{ toolCallId: 'refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] }
        : { text: 'Refunded.' };
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-v1',
    doGenerate: async (options) => {
      const step = options.prompt.filter((m) => m.role === 'assistant').length;
      log.mark(`model ${step}`);
      return stepResult(script(step), step);
    },
  });
  const lookupOrder = tool({
    inputSchema: z.object({ orderId: z.string() }),
    execute: async ({ orderId }) => {
      log.mark('lookupOrder executes');
      return { orderId, total: 40 };
    },
  });
  const refund = gnlTool(
    tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      execute: async () => {
        log.mark('refund executes');
        return { refundId: 'r_1' };
      },
    }),
    { sideEffect: true },
  );
  return { model, tools: { lookupOrder, refund } };
}

async function run(journal: Journal, log: StatementLog, runId: string, lookups = 1) {
  const agent = countedAgent(log, lookups);
  log.mark('invoke');
  const result = await runDurable({ runId, journal, ...agent, stopWhen: stepCountIs(lookups + 3), prompt: 'Refund o_17' });
  log.mark('returned');
  expect(result.status).toBe('completed');
}

function report(title: string, log: StatementLog) {
  const phases = [
    ['model step 0 answered (rides with what follows)', 'model 0'],
    ['read-only call recorded, with model step 0', 'lookupOrder executes'],
    ['model step 1 + side effect started, one statement', 'model 1'],
    ['side effect finished', 'refund executes'],
  ] as const;
  const rows = phases.map(([what, mark]) => ({ what, ...log.between(mark) }));
  console.log(
    [
      `hot path on ${title} (pool statements / round trips; each statement is its own transaction, one commit):`,
      ...rows.map((r) => `  ${r.what.padEnd(46)} ${r.statements.length} statement(s), ${r.roundTrips} round trip(s): ${r.statements.join('; ')}`),
    ].join('\n'),
  );
  return rows.map((r) => [r.statements.length, r.roundTrips]);
}

const EXPECTED = [
  [0, 0], // a model step: nothing yet (it rides with the next append)
  [1, 1], // a read-only call: its end, with the step before it, one append
  [1, 1], // the next model step and the side effect's start, one append (durable before execute)
  [1, 1], // the side effect's end
];

describe('hot path [pglite]', () => {
  it('a model step rides with the next record; one statement per read-only call, two per side effect; a resume reads the history in one query', async () => {
    const storage = new PGliteStorage({ dataDir: tempDataDir() });
    try {
      const log = new StatementLog();
      await countPGlite(storage, log);
      await run(storage.runs, log, uniqueRunId());
      expect(report('PGlite', log)).toEqual(EXPECTED);
      expect(log.entries.some((e) => e.kind === 'statement' && /begin|transaction/i.test(e.text))).toBe(false);
      await expectOneQueryResume(storage.runs, log, 'PGlite');
    } finally {
      await storage.close();
    }
  });
});

describe.skipIf(!DATABASE_URL)(`hot path [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  it('one statement and one round trip per read-only call, two per side effect, a model step riding with the next; a resume reads the history in one query', async () => {
    const log = new StatementLog();
    // A database of its own: listeners of the shared one (other suites') would make every append announced (watch-locks.ts).
    const database = await createFreshDatabase(DATABASE_URL as string, 'gnl_hot');
    // One pool connection: every statement is prepared on it by the first run, as on a warm pool.
    const storage = countedPostgres(database.url, log, { max: 1 });
    const studio = new PostgresStorage({ connectionString: database.url });
    try {
      await run(storage.runs, log, uniqueRunId('warm-up'));
      report('Postgres, first use of each statement on the connection (postgres.js describes it once)', log);
      log.entries.length = 0;
      await run(storage.runs, log, uniqueRunId());
      expect(report('Postgres, warm connection', log)).toEqual(EXPECTED);
      const onPool = log.entries.filter((e) => e.kind === 'statement' && e.role === 'gnl').map((e) => (e.kind === 'statement' ? e.text : ''));
      expect(onPool.some((text) => /^\s*(begin|commit)/i.test(text))).toBe(false);
      await storage.notificationsSent();
      const statements = log.entries.flatMap((e) => (e.kind === 'statement' ? [e] : []));
      const writes = statements.filter((e) => e.role === 'gnl' && /^\s*with r as/.test(e.text)).length;
      const notifies = statements.filter((e) => e.role === 'gnl-holds' && /pg_notify/.test(e.text)).length;
      const holds = statements.filter((e) => e.role === 'gnl-holds' && /advisory/.test(e.text)).length;
      console.log(
        `  side session for the whole invocation: ${holds} hold statements (take, give back); ${notifies} NOTIFY statement(s) for ${writes} writes: nobody listens`,
      );
      expect(writes).toBeGreaterThan(0);
      expect(notifies).toBe(0);
      // The whole invocation of a new run (issue 31): the read that answers a completed run (its events are
      // the first load when nothing moved), the hold taken in one statement (its connection checked by the
      // warm-up run), the writes, the hold given back. Nothing else.
      const other = statements
        .filter((e) => !(e.role === 'gnl' && /^\s*with r as/.test(e.text)))
        .map((e) => `${e.role}: ${e.text.replace(/\s+/g, ' ').slice(0, 50)}`);
      console.log(`  every statement of the invocation: ${statements.length} = ${writes} writes + ${other.join(' | ')}`);
      expect(statements.length).toBe(writes + 3);

      // Someone follows the run (the Studio's run page, from another process): its writes are announced, coalesced, after commit.
      const watchedRun = uniqueRunId('watched');
      const seen: number[] = [];
      const follow = await studio.runs.subscribe({ runId: watchedRun, onEvents: (events) => void seen.push(...events.map((e) => e.seq)) });
      log.entries.length = 0;
      await run(storage.runs, log, watchedRun);
      await storage.notificationsSent();
      const watched = log.entries.flatMap((e) => (e.kind === 'statement' ? [e] : []));
      const watchedWrites = watched.filter((e) => e.role === 'gnl' && /^\s*with r as/.test(e.text)).length;
      const watchedNotifies = watched.filter((e) => e.role === 'gnl-holds' && /pg_notify/.test(e.text)).length;
      console.log(`  followed by another storage: ${watchedNotifies} NOTIFY statement(s) for ${watchedWrites} writes, sent after commit, never awaited`);
      expect(watchedNotifies).toBeGreaterThan(0);
      expect(watchedNotifies).toBeLessThanOrEqual(watchedWrites);
      const last = (await storage.runs.getRun(watchedRun))?.lastSeq ?? 0;
      while (seen.at(-1) !== last) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(seen).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      await follow.close();
      await expectOneQueryResume(storage.runs, log, 'Postgres');
    } finally {
      await storage.close();
      await studio.close();
      await database.drop();
    }
  });
});

/** A run with a long history, resumed: the pool sees one query for the whole history. */
async function expectOneQueryResume(journal: Journal, log: StatementLog, title: string) {
  const runId = uniqueRunId('long');
  await run(journal, log, runId, 30);
  const events = await journal.events(runId);
  log.mark('replay');
  await run(journal, log, runId, 30);
  const replay = log.between('invoke');
  console.log(`  resume of a run with ${events.length} events on ${title}: ${replay.statements.length} pool statement(s): ${replay.statements.join('; ')}`);
  expect(events.length).toBeGreaterThan(60);
  expect(replay.statements).toEqual(['load (select run_events)']);
}
