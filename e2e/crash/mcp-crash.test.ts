/**
 * An MCP tool runs at most once after a crash: the crash agent in 'mcp' mode (protocol.ts) takes its tools
 * from a real MCP server process (tests/support/mcp-server.ts) through durableMcpTools, and SIGKILLs itself
 * after the server made the refund and answered, before the journal recorded it. A fresh child, with a
 * fresh server process, must block (unknown outcome) rather than ask the server again. Judged by the
 * server's own ledger file. On embedded PGlite (a data folder the children share) and on Postgres.
 */
import path from 'node:path';
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { idempotencyKey, type Journal } from '@/lib/durable';
import { PGliteStorage, PostgresStorage } from '@/lib/durable/storage';
import { DATABASE_URL, describeEachJournal, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { callsOf, newLedger, readLedger } from '@/tests/support/mcp-ledger';
import { type AgentConfig, describeEnd, newModelLog, repeatedModelCalls, runAgent } from './harness';
import { ORDER_ID } from './protocol';

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** The journal the children use, read by the test between children (a PGlite folder only while no child runs). */
function journalAccess(name: 'pglite' | 'postgres'): {
  child: Pick<AgentConfig, 'journal' | 'dataDir' | 'databaseUrl'>;
  use<T>(fn: (j: Journal) => Promise<T>): Promise<T>;
} {
  if (name === 'postgres') {
    const child = { journal: 'postgres', databaseUrl: DATABASE_URL as string } as const;
    return {
      child,
      async use(fn) {
        const storage = new PostgresStorage({ connectionString: DATABASE_URL as string, max: 1 });
        try {
          return await fn(storage.runs);
        } finally {
          await storage.close();
        }
      },
    };
  }
  const dataDir = tempDataDir();
  tempDirs.push(path.dirname(dataDir));
  return {
    child: { journal: 'pglite', dataDir },
    async use(fn) {
      const storage = new PGliteStorage({ dataDir });
      try {
        return await fn(storage.runs);
      } finally {
        await storage.close();
      }
    },
  };
}

describeEachJournal('an MCP side effect after a SIGKILL', (target) => {
  it('killed after the MCP server refunded and answered: a fresh process and server block on the unknown outcome; the server refunded once', async () => {
    const access = journalAccess(target.name);
    const ledger = newLedger();
    const modelLog = newModelLog();
    tempDirs.push(path.dirname(ledger), path.dirname(modelLog));
    const runId = uniqueRunId(`mcp-crash:${target.name}`);
    const config = { ...access.child, runId, scenario: 'plain', mode: 'mcp', mcpLedger: ledger, modelLog } as const;

    const killed = await runAgent({ ...config, crashPoint: 'in-refund-after-response' });
    expect(killed.killed, describeEnd(killed)).toBe(true);
    expect(readLedger(ledger).refunds[ORDER_ID]).toBe(1);
    const key = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'send_refund' });

    const again = await runAgent({ ...config, crashPoint: 'none' });
    expect(again.outcome, describeEnd(again)).toMatchObject({
      outcome: 'blocked',
      error: { name: 'SideEffectRetryBlockedError', runId, toolCallId: 'call-refund', toolName: 'send_refund', idempotencyKey: key },
    });
    const { run, events } = await access.use(async (journal) => ({ run: await journal.getRun(runId), events: await journal.events(runId) }));
    expect(run).toMatchObject({ status: 'blocked', pending: [{ kind: 'side-effect', toolCallId: 'call-refund', idempotencyKey: key }] });
    // The refund's start, durable before the server was asked, and no outcome: the lookup's end was replayed.
    expect(events.filter((e) => e.type.startsWith('tool-call-')).map((e) => [e.type, 'toolName' in e && e.toolName])).toEqual([
      ['tool-call-end', 'lookup_order'],
      ['tool-call-start', 'send_refund'],
    ]);
    expect(repeatedModelCalls(modelLog), 'model calls after the step was recorded').toEqual([]);

    // The server's own ledger: two server processes, the second asked nothing; one refund, one lookup.
    const after = readLedger(ledger);
    expect(after.servers).toHaveLength(2);
    expect(after.calls.filter((c) => c.pid === after.servers[1])).toEqual([]);
    expect(callsOf(after, 'send_refund', ORDER_ID)).toHaveLength(1);
    expect(callsOf(after, 'lookup_order', ORDER_ID)).toHaveLength(1);
    expect(after.refunds[ORDER_ID]).toBe(1);
  });
});
