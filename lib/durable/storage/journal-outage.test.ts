/**
 * The journal's connections are cut mid-run (every connection of the storage ended by the server) inside a
 * tool: the invocation that saw the tool finish takes the run's hold again and records its outcome
 * (run-session.ts retakeToRecord), and completes with nothing lost or repeated, seq contiguous.
 * Postgres only: the embedded journal lives in the process.
 */
import { sql } from 'drizzle-orm';
import { tool } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { Ledger } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { PostgresStorage } from './index';
import { gnlTool, runDurable } from '../index';

const script = (step: number): ScriptedStep =>
  step === 0
    ? { toolCalls: [{ toolCallId: 'lookup', toolName: 'lookupOrder', input: { orderId: 'o_17' } }] }
    : step === 1
      ? { toolCalls: [{ toolCallId: 'refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] }
      : { text: 'Refunded.' };

describe.skipIf(!DATABASE_URL)(`journal outage mid-run [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  const admin = DATABASE_URL ? new PostgresStorage({ connectionString: DATABASE_URL }) : undefined;
  afterAll(() => admin?.close());

  /** Cuts every connection of the storage whose connections carry this application_name, and waits until they are gone. */
  async function cutConnections(applicationName: string) {
    const db = await (admin as PostgresStorage).database();
    await db.execute(sql`select pg_terminate_backend(pid, 5000) from pg_stat_activity where application_name = ${applicationName}`);
  }

  function agent(outageDuring: 'lookupOrder' | 'refund', applicationName: string) {
    const ledger = new Ledger();
    let outageDone = false;
    const maybeCut = async (toolName: string) => {
      if (toolName === outageDuring && !outageDone) {
        outageDone = true;
        await cutConnections(applicationName);
      }
    };
    const lookupOrder = tool({
      inputSchema: z.object({ orderId: z.string() }),
      execute: async ({ orderId }) => {
        await maybeCut('lookupOrder');
        return { orderId, total: 40 };
      },
    });
    const refund = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        execute: async (input, { idempotencyKey }) => {
          const out = ledger.refund(idempotencyKey as string, input);
          await maybeCut('refund');
          return out;
        },
      }),
      {
        sideEffect: true,
        // The outside system can say whether the work under a key happened.
        check: async ({ idempotencyKey }) =>
          ledger.executions.has(idempotencyKey) ? { done: true, output: { refundId: 'r_o_17', amount: 40 } } : { done: false },
      },
    );
    return { ledger, tools: { lookupOrder, refund } };
  }

  for (const outageDuring of ['lookupOrder', 'refund'] as const) {
    it(`connections cut during ${outageDuring}: the invocation takes its hold again, records the outcome and completes with one refund`, async () => {
      const applicationName = `gnl-outage-${outageDuring}-${process.pid}`;
      const url = new URL(DATABASE_URL as string);
      url.searchParams.set('application_name', applicationName);
      const storage = new PostgresStorage({ connectionString: url.toString() });
      const runId = uniqueRunId('outage');
      const { ledger, tools } = agent(outageDuring, applicationName);
      try {
        const result = await runDurable({ runId, journal: storage.runs, model: scriptedModel(script).model, tools, prompt: 'Refund o_17' });
        expect(result.status).toBe('completed');
        expect(ledger.total).toBe(1);
        const events = await (admin as PostgresStorage).runs.events(runId);
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        expect(events.filter((e) => e.type === 'model-step')).toHaveLength(3);
        // One invocation: no resume, and the outcome is the tool's own (no check was asked).
        expect(events.filter((e) => e.type === 'run-resume')).toEqual([]);
        expect(events.find((e) => e.type === 'tool-call-end' && e.toolName === outageDuring)).not.toMatchObject({ source: 'check' });
      } finally {
        await storage.close();
      }
    });
  }
});
