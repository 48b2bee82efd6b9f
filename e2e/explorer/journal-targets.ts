/**
 * Where the explorer's runs are journaled, and how the explorer reads the journal back: with SQL on
 * the journal's own tables (gnl.runs, gnl.run_events), never from what the agent says.
 * - PGlite: one template folder, created and migrated once per explorer run, copied per schedule (a
 *   fresh folder in a few hundred ms instead of seconds of initdb and migrations).
 * - Postgres: a database of its own on the server named by DATABASE_URL, migrated once, dropped at the
 *   end; runIds are unique anyway.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { PGliteStorage, PostgresStorage } from '@/lib/durable/storage';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { EVENTS_SQL, type JournalKind, type JournalLocation, type JournalRead, RUN_SQL } from './protocol';

type JournalRow = JournalRead['events'][number];

export interface ScheduleJournal {
  location: JournalLocation;
  /** PGlite: the settling child reads the rows with SQL before it closes the folder (RunCommand.readJournal). */
  readByChild: boolean;
  /** Reads the run with SQL (no child may be running: PGlite serves one process). */
  read(runId: string): Promise<JournalRead>;
  dispose(): Promise<void>;
}

export interface JournalTarget {
  kind: JournalKind;
  /** Environment for warm children (a Postgres child connects while it waits). */
  childEnv: Record<string, string>;
  /** The Journal port has provideToolResult (tools without execute; being built in issue 11's time). */
  provideToolResult: boolean;
  forSchedule(): Promise<ScheduleJournal>;
  close(): Promise<void>;
}

export async function pgliteTarget(): Promise<JournalTarget & { templateMs: number }> {
  const started = performance.now();
  const base = mkdtempSync(path.join(tmpdir(), 'gnl-explorer-pglite-'));
  const template = path.join(base, 'template');
  const storage = new PGliteStorage({ dataDir: template });
  await storage.database();
  const provideToolResult = typeof (storage.runs as { provideToolResult?: unknown }).provideToolResult === 'function';
  await storage.close();
  let n = 0;
  return {
    kind: 'pglite',
    childEnv: {},
    provideToolResult,
    templateMs: performance.now() - started,
    async forSchedule() {
      n += 1;
      const dataDir = path.join(base, `s${n}`);
      cpSync(template, dataDir, { recursive: true });
      return {
        location: { kind: 'pglite', dataDir },
        readByChild: true,
        async read(runId) {
          const db = await PGlite.create(dataDir);
          try {
            const events = (await db.query<JournalRow>(EVENTS_SQL, [runId])).rows;
            const run = (await db.query<{ status: string; last_seq: number }>(RUN_SQL, [runId])).rows[0];
            return { events, run: run && { status: run.status, lastSeq: run.last_seq } };
          } finally {
            await db.close();
          }
        },
        dispose: async () => {
          rmSync(dataDir, { recursive: true, force: true });
          rmSync(`${dataDir}.lock`, { force: true });
          rmSync(`${dataDir}.lock.db`, { force: true });
        },
      };
    },
    close: async () => rmSync(base, { recursive: true, force: true }),
  };
}

/**
 * `idleSessionTimeoutMs` (the database fault family): the explorer's database ends every session idle
 * for longer (`alter database … set idle_session_timeout`), as managed Postgres services do; the
 * long-call scenario's side effect outlasts it. The explorer's own reader is exempt.
 */
export async function postgresTarget(serverUrl: string, options: { idleSessionTimeoutMs?: number } = {}): Promise<JournalTarget> {
  const database = await createFreshDatabase(serverUrl, 'gnl_explorer');
  const storage = new PostgresStorage({ connectionString: database.url, max: 1 });
  await storage.database();
  const provideToolResult = typeof (storage.runs as { provideToolResult?: unknown }).provideToolResult === 'function';
  await storage.close();
  // Exempt from the database's idle_session_timeout: `-c` in options. As `connection: { idle_session_timeout: 0 }` it was
  // never sent (postgres.js drops a falsy startup parameter): the session read 700ms, and a read raced the server
  // ending its idle connection (CONNECTION_CLOSED, a red CI).
  const sql = postgres(database.url, { max: 2, onnotice: () => {}, connection: { options: '-c idle_session_timeout=0' } });
  if (options.idleSessionTimeoutMs !== undefined) {
    await sql.unsafe(`alter database ${new URL(database.url).pathname.slice(1)} set idle_session_timeout = ${Math.round(options.idleSessionTimeoutMs)}`);
  }
  return {
    kind: 'postgres',
    childEnv: { EXPLORER_DATABASE_URL: database.url },
    provideToolResult,
    async forSchedule() {
      return {
        location: { kind: 'postgres', databaseUrl: database.url },
        readByChild: false,
        async read(runId) {
          const events = (await sql.unsafe(EVENTS_SQL, [runId])) as unknown as JournalRow[];
          const run = ((await sql.unsafe(RUN_SQL, [runId])) as unknown as { status: string; last_seq: number }[])[0];
          return { events: events.map((e) => ({ seq: e.seq, type: e.type, payload: e.payload })), run: run && { status: run.status, lastSeq: run.last_seq } };
        },
        dispose: async () => {},
      };
    },
    async close() {
      await sql.end({ timeout: 5 });
      await database.drop();
    },
  };
}
