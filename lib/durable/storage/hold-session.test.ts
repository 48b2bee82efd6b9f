/**
 * The hold session outlives one long tool call whatever kills idle connections: a server (role) setting
 * `idle_session_timeout` shorter than the call, and a proxy that cuts connections idle for longer than
 * that. Real runs on the real Postgres server named by DATABASE_URL, through real TCP proxies
 * (tests/support/). Postgres only: PGlite is embedded and has no sessions, no idle timeout and no
 * connection to cut, so none of this can happen there.
 */
import { randomBytes } from 'node:crypto';
import { tool } from 'ai';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startIdleCuttingProxy } from '@/tests/support/idle-cutting-proxy';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { Ledger } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { gnlTool, runDurable } from '../index';
import { PostgresStorage, type PostgresStorageOptions } from './index';

const CALL_MS = 1500;
const IDLE_MS = 300;

const script = (step: number): ScriptedStep =>
  step === 0 ? { toolCalls: [{ toolCallId: 'refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] } : { text: 'Refunded.' };

/** A refund that takes CALL_MS, counted by a ledger outside the agent. */
function slowRefund() {
  const ledger = new Ledger();
  const refund = gnlTool(
    tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      execute: async (input, { idempotencyKey }) => {
        await new Promise((resolve) => setTimeout(resolve, CALL_MS));
        return ledger.refund(idempotencyKey as string, input);
      },
    }),
    { sideEffect: true },
  );
  return { ledger, tools: { refund } };
}

/** One run with one slow refund on a storage of its own; the invocation's error if it threw. */
async function slowRun(options: PostgresStorageOptions) {
  const storage = new PostgresStorage(options);
  const runId = uniqueRunId('hold-session');
  const { ledger, tools } = slowRefund();
  try {
    const outcome: { status?: string; error?: Error } = await runDurable({
      runId,
      journal: storage.runs,
      model: scriptedModel(script).model,
      tools,
      prompt: 'Refund o_17',
    }).then(
      (result) => ({ status: result.status }),
      (error: unknown) => ({ error: error as Error }),
    );
    return { ...outcome, ledger, run: await storage.runs.getRun(runId) };
  } finally {
    await storage.close();
  }
}

const suite = DATABASE_URL ? describe : describe.skip;

suite(`the hold session across a long call [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  const admin = DATABASE_URL ? postgres(DATABASE_URL, { max: 1, onnotice: () => {} }) : (undefined as never);
  const role = `gnl_idle_${randomBytes(4).toString('hex')}`;
  const roleUrl = () => {
    const url = new URL(DATABASE_URL as string);
    url.username = role;
    url.password = '';
    return url.toString();
  };

  beforeAll(async () => {
    const owner = new PostgresStorage({ connectionString: DATABASE_URL as string });
    await owner.database().finally(() => owner.close()); // the schema exists before the role is granted its tables
    const database = new URL(DATABASE_URL as string).pathname.slice(1);
    // What managed Postgres does: a per-role (or per-database) default, not something the client asked for.
    await admin.unsafe(`create role ${role} login`);
    await admin.unsafe(`alter role ${role} set idle_session_timeout = '${IDLE_MS}ms'`);
    // CREATE on the database and schemas: migrate's `create schema/table if not exists` checks it even when they exist.
    await admin.unsafe(`grant connect, create on database "${database}" to ${role}`);
    await admin.unsafe(`grant usage, create on schema gnl, gnl_meta to ${role}`);
    await admin.unsafe(`grant select, insert, update, delete on all tables in schema gnl, gnl_meta to ${role}`);
  });

  afterAll(async () => {
    await admin`select pg_terminate_backend(pid, 5000) from pg_stat_activity where usename = ${role}`;
    await admin.unsafe(`drop owned by ${role}`);
    await admin.unsafe(`drop role ${role}`);
    await admin.end({ timeout: 5 });
  });

  it(`the role's idle_session_timeout (${IDLE_MS} ms) really ends idle sessions of that role`, async () => {
    const plain = postgres(roleUrl(), { max: 1, onnotice: () => {} });
    try {
      const [row] = await plain<{ idle_session_timeout: string }[]>`show idle_session_timeout`;
      expect(row?.idle_session_timeout).toBe(`${IDLE_MS}ms`);
      const [before] = await plain<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 3));
      const [after] = await plain<{ pid: number }[]>`select pg_backend_pid() as pid`; // postgres.js reconnected
      expect(after?.pid).not.toBe(before?.pid);
    } finally {
      await plain.end({ timeout: 1 });
    }
  });

  it(`a side effect taking ${CALL_MS} ms under a role idle_session_timeout of ${IDLE_MS} ms completes, performed once`, async () => {
    const outcome = await slowRun({ connectionString: roleUrl() });
    expect(outcome.error).toBeUndefined();
    expect(outcome.status).toBe('completed');
    expect(outcome.run?.status).toBe('completed');
    expect(outcome.ledger.total).toBe(1);
  });

  it(`behind a proxy that cuts connections idle for ${IDLE_MS} ms, a ${CALL_MS} ms side effect completes, performed once (keep-alive every 100 ms)`, async () => {
    const proxy = await startIdleCuttingProxy(DATABASE_URL as string, IDLE_MS);
    try {
      const outcome = await slowRun({ connectionString: proxy.url, keepAliveMs: 100 });
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe('completed');
      expect(outcome.ledger.total).toBe(1);
      console.log(`  idle connections cut by the proxy, by role: ${JSON.stringify(proxy.cuts())}`);
      expect(proxy.cuts()['gnl-holds'] ?? 0).toBe(0);
      expect(proxy.cuts().gnl ?? 0).toBeGreaterThan(0); // the pool's idle connections were cut, and replaced
    } finally {
      await proxy.close();
    }
  });
});
