/**
 * Seeds a fresh embedded journal (GNL_DATA_DIR) with real runs for the Studio e2e suite, using the real
 * runtime: runDurable with scripted models, on real PGlite. Runs BEFORE the Studio starts, and closes
 * its storage: the folder lock admits one process per data folder.
 *
 * Also the operator accounts the specs sign in with (seed-data.ts OPERATORS).
 *
 * The blocked run needs a real crash: a child process (this file with argument `crash`) is SIGKILLed
 * inside the refund's execute, after its start was journaled; resuming it here then blocks.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { trace } from '@opentelemetry/api';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { type ModelMessage, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { addOperator } from '@/lib/accounts';
import { gnlTool, runDurable, SideEffectRetryBlockedError } from '@/lib/durable';
import { PGliteStorage } from '@/lib/durable/storage';
import { scriptedModel } from '@/tests/support/scripted-model';
import { CONVERSATION, HTML_PAYLOAD, OPERATORS, SEEDED } from './seed-data';

const dataDir = process.env.GNL_DATA_DIR;
if (!dataDir) throw new Error('seed: set GNL_DATA_DIR to the (fresh) data folder the Studio will read.');

const lookupOrder = tool({
  description: 'Look up an order',
  inputSchema: z.object({ orderId: z.string(), note: z.string() }),
  execute: async ({ orderId }) => ({ orderId, total: 40 }),
});

function refundTool(execute: () => void) {
  return tool({
    description: 'Refund an order',
    inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
    execute: async ({ orderId, amount }) => {
      execute();
      return { refundId: `r_${orderId}`, amount };
    },
  });
}

/** One step calling `refund` for `orderId`, then a closing text. */
function refundModel(orderId: string) {
  return scriptedModel((step) =>
    step === 0 ? { toolCalls: [{ toolCallId: `call-refund-${orderId}`, toolName: 'refund', input: { orderId, amount: 40 } }] } : { text: 'Refunded.' },
  ).model;
}

async function seedCompletedAndWaiting(journal: PGliteStorage['runs']) {
  const lookup = scriptedModel((step) =>
    step === 0
      ? { toolCalls: [{ toolCallId: 'call-lookup', toolName: 'lookupOrder', input: { orderId: 'o_17', note: HTML_PAYLOAD } }] }
      : { text: 'Order o_17 totals 40.' },
  );
  // Seeded under a real tracer provider (the OpenTelemetry SDK, no exporter): its run-start records the
  // invocation's span, which the run page links to GNL_TRACE_URL (timeline.spec.ts).
  const tracing = new TracerProvider();
  trace.setGlobalTracerProvider(tracing);
  const completed = await runDurable({
    runId: SEEDED.completed.runId,
    journal,
    model: lookup.model,
    tools: { lookupOrder },
    stopWhen: stepCountIs(5),
    prompt: 'What does o_17 total?',
  });
  assert(completed.status === 'completed', `expected completed, got ${completed.status}`);
  trace.disable();
  await tracing.shutdown();

  const waiting = await runDurable({
    runId: SEEDED.waiting.runId,
    journal,
    model: refundModel('o_18'),
    tools: {
      refund: gnlTool(
        refundTool(() => {}),
        { sideEffect: true, needsApproval: true },
      ),
    },
    stopWhen: stepCountIs(5),
    prompt: 'Refund o_18',
  });
  assert(waiting.status === 'waiting-approval', `expected waiting-approval, got ${waiting.status}`);
}

/** In the child: start the refund and die inside it, after its start is durable and before its result is. */
async function crashInsideRefund(journal: PGliteStorage['runs']) {
  const refund = gnlTool(
    refundTool(() => process.kill(process.pid, 'SIGKILL')),
    { sideEffect: true },
  );
  await runDurable({ runId: SEEDED.blocked.runId, journal, model: refundModel('o_19'), tools: { refund }, stopWhen: stepCountIs(5), prompt: 'Refund o_19' });
  throw new Error('seed: the refund should have killed this process');
}

async function seedBlocked(journal: PGliteStorage['runs']) {
  const refund = gnlTool(
    refundTool(() => {
      throw new Error('seed: a blocked side effect must not run again');
    }),
    { sideEffect: true },
  );
  try {
    await runDurable({ runId: SEEDED.blocked.runId, journal, model: refundModel('o_19'), tools: { refund }, stopWhen: stepCountIs(5), prompt: 'Refund o_19' });
  } catch (error) {
    if (error instanceof SideEffectRetryBlockedError) return;
    throw error;
  }
  throw new Error('seed: resuming after the crash should have blocked');
}

/**
 * The chat (seed-data.ts CONVERSATION): one run per user turn, its messages the conversation so far.
 * The model's n-th call is the conversation's n-th assistant message, so one script serves every turn.
 */
async function seedConversation(journal: PGliteStorage['runs']) {
  const { conversationId, turns, tool: toolName } = CONVERSATION;
  const model = scriptedModel((step) =>
    step < 2 ? { text: turns[step]?.answer as string } : { toolCalls: [{ toolCallId: 'call-refund-o_20', toolName, input: { orderId: 'o_20', amount: 40 } }] },
  ).model;
  const tools = {
    [toolName]: gnlTool(
      refundTool(() => {}),
      { sideEffect: true, needsApproval: true },
    ),
  };
  const messages: ModelMessage[] = [];
  for (const turn of turns) {
    messages.push({ role: 'user', content: turn.user });
    const result = await runDurable({ runId: turn.runId, journal, model, tools, stopWhen: stepCountIs(5), messages: [...messages], conversationId });
    assert(result.status === turn.status, `expected ${turn.runId} ${turn.status}, got ${result.status}`);
    if (turn.answer) messages.push({ role: 'assistant', content: [{ type: 'text', text: turn.answer }] });
  }
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`seed: ${message}`);
}

async function main() {
  const crashChild = process.argv[2] === 'crash';
  if (!crashChild) {
    // The child gets its own PGlite on the folder; this process must not hold it meanwhile.
    const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), 'crash'], { stdio: 'inherit', env: process.env });
    assert(child.signal === 'SIGKILL', `the crash child should die by SIGKILL, got status ${child.status} signal ${child.signal}`);
  }
  const storage = new PGliteStorage({ dataDir });
  try {
    if (crashChild) await crashInsideRefund(storage.runs);
    await seedBlocked(storage.runs);
    // Between the blocked run and the others: the newest runs stay the ones the runs page lists first.
    await seedConversation(storage.runs);
    await seedCompletedAndWaiting(storage.runs);
    for (const operator of Object.values(OPERATORS)) await addOperator({ storage, ...operator, by: 'e2e seed' });
    const { runs } = await storage.runs.listRuns();
    console.log(`seed: ${runs.map((run) => `${run.runId} ${run.status}`).join(', ')}`);
  } finally {
    await storage.close();
  }
}

await main();
