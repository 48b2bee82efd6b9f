/**
 * A decision from the Studio (operator-actions.ts's decide) on the journal storageFromEnv gives: once the
 * journal has recorded it, a resume that fails after (the executor away a moment) is said as such, never as
 * "the journal could not record this" (which had the operator click again and meet their own decision).
 * And a demo start retried with its form's request id starts one run.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from '@/agents';
import { gnlTool, RunState, runDurable } from '@/lib/durable';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';
import { cancelRun, type Executor, getExecutor, stopExecutor } from '@/lib/executor';
import { scriptedModel } from '@/tests/support/scripted-model';
import { decide, startDemoRun } from './operator-actions';

let storage: Storage;
let executor: Executor;

beforeAll(async () => {
  // The embedded journal even in CI: this file's executor must not claim the runs other suites leave runnable in the shared database.
  delete process.env.DATABASE_URL;
  process.env.GNL_DATA_DIR = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-studio-decide-')), 'data');
  storage = storageFromEnv();
  executor = getExecutor({ storage, registry });
}, 300_000);

afterAll(async () => {
  await stopExecutor({ graceMs: 1_000 });
  await storage.close();
});

const refund = gnlTool(
  tool({ description: 'Refund an order', inputSchema: z.object({ orderId: z.string() }), execute: async ({ orderId }) => ({ refundId: `r_${orderId}` }) }),
  { sideEffect: true, needsApproval: true },
);

it('an approval recorded, then a resume that fails: the answer says it is recorded and how to resume; a second click is the operator’s own decision', async () => {
  const runId = `studio-decide:${randomUUID()}`;
  const model = scriptedModel((step) =>
    step === 0 ? { toolCalls: [{ toolCallId: 'call-1', toolName: 'refund', input: { orderId: 'o_1' } }] } : { text: 'Done.' },
  ).model;
  expect((await runDurable({ runId, journal: storage.runs, model, tools: { refund }, stopWhen: stepCountIs(3), prompt: 'Refund' })).status).toBe(
    'waiting-approval',
  );
  const resumeRun = executor.resumeRun;
  executor.resumeRun = async () => {
    throw new Error('Connection terminated unexpectedly');
  };
  try {
    const answer = await decide({ kind: 'approve', runId, toolCallId: 'call-1', by: 'alice@acme' });
    expect(answer).toMatchObject({ ok: true, decision: { outcome: 'approved', by: 'alice@acme' }, resume: { state: 'failed' } });
    expect((answer as { resume: { message: string } }).resume.message).toMatch(/^Recorded\. Resuming the run failed .*resume it from its page/);
  } finally {
    executor.resumeRun = resumeRun;
  }
  expect(new RunState(await storage.runs.events(runId)).decisions.get('call-1')).toMatchObject({ outcome: 'approved', by: 'alice@acme' });
  const again = await decide({ kind: 'approve', runId, toolCallId: 'call-1', by: 'alice@acme' });
  expect(again).toMatchObject({ ok: false, kind: 'conflict', reason: 'already-decided', yours: true });
});

it('a demo start sent twice with one request id (a double click, a retried request) is one run', async () => {
  const requestId = randomUUID();
  const start = { prompt: 'Customer c_42 asks where order o_17 is', by: 'alice@acme', requestId };
  const first = await startDemoRun(start);
  const again = await startDemoRun(start);
  expect(first).toMatchObject({ ok: true, runId: `support:${requestId}` });
  expect(again).toEqual(first);
  const starts = (await storage.runs.events(`support:${requestId}`)).filter((event) => event.type === 'run-start');
  expect(starts).toHaveLength(1);
  const run = await storage.runs.getRun(`support:${requestId}`);
  if (run?.status !== 'completed' && run?.status !== 'canceled')
    await cancelRun(`support:${requestId}`, { storage, by: 'alice@acme', reason: 'the test is done with it' }).catch(() => undefined);
});
