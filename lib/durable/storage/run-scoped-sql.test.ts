/**
 * The path past one server (issue 33, docs/scaling.md): on the hot path every statement that reads or
 * writes a run's rows names the run (`run_id = $n`), so a Postgres that distributes the journal's tables by
 * run_id (Citus) sends each to one shard. Scanned on the real driver's wire (statement-log.ts) while a run
 * asks for an approval, is decided, resumed, executes a side effect and completes, and while it is read.
 * Statements that touch no run's rows (a hold's advisory lock, its keep-alive, NOTIFY, a session's pid)
 * are listed apart; the one cross-table read (a large value's body by its hash) is named with its reason.
 */
import { describe, expect, it } from 'vitest';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { StatementLog, countedPostgres } from '@/tests/support/statement-log';
import { runDurable } from '../index';

/** Statements on no run's rows: the hold's session work, a transaction's bounds, the clock. */
const NO_RUN_ROWS = [
  /pg_try_advisory_lock|pg_advisory_unlock/,
  /pg_notify/,
  /^select pg_backend_pid\(\)/,
  /^select 1\b/,
  /idle_session_timeout/,
  // A decision's transaction around its statements, and the database's clock it is dated by.
  /^(begin|commit|rollback)$/i,
  /^select now\(\) as now$/,
];

/** A statement names the run: an equality on run_id with a parameter (the journal's spelling). */
const SCOPED = /\brun_id\s*=\s*\$\d+/;

describe.skipIf(!DATABASE_URL)(`the hot path is scoped by run id [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  it('every statement of a run on the wire, from its start to its completion and a read of it, names its run_id', async () => {
    const log = new StatementLog();
    const storage = countedPostgres(DATABASE_URL as string, log, { max: 2 });
    try {
      // Warm: the schema's first use (migrations, settings) is no run's hot path.
      const warm = uniqueRunId('scoped-warm');
      const agent = refundAgent({ sideEffect: true, needsApproval: true });
      const call = (runId: string) => runDurable({ runId, journal: storage.runs, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
      await call(warm);
      log.entries.length = 0;

      const runId = uniqueRunId('scoped');
      expect((await call(runId)).status).toBe('waiting-approval');
      await storage.runs.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
      expect((await call(runId)).status).toBe('completed');
      expect((await call(runId)).status).toBe('completed'); // the answer from its record
      await storage.runs.getRun(runId);
      await storage.runs.events(runId);
      await storage.notificationsSent();

      const statements = [...new Set(log.entries.flatMap((e) => (e.kind === 'statement' ? [e.text.replace(/\s+/g, ' ').trim()] : [])))];
      const sessionWork = statements.filter((text) => NO_RUN_ROWS.some((pattern) => pattern.test(text)));
      const onRows = statements.filter((text) => !sessionWork.includes(text));
      const unscoped = onRows.filter((text) => !SCOPED.test(text));
      console.log(
        `  ${statements.length} distinct statements on the wire: ${onRows.length} on a run's rows, all naming run_id; ${sessionWork.length} on no run's rows (locks, NOTIFY, keep-alive, a transaction's bounds, the clock)`,
      );
      expect(onRows.length).toBeGreaterThan(5);
      expect(unscoped).toEqual([]);
      // Every table a statement names is one distributed by run_id, or payloads (content-addressed by hash:
      // reached only through a run's own rows' `blobs`, docs/scaling.md).
      const tables = new Set(onRows.flatMap((text) => [...text.matchAll(/\bgnl\.(\w+)/g)].map((m) => m[1] as string)));
      const distributed = new Set(['runs', 'run_events', 'run_queue', 'notifications', 'run_keys', 'stream_chunks', 'retention_log', 'payloads']);
      expect([...tables].filter((table) => !distributed.has(table))).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});
