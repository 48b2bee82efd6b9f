/**
 * An existing AI SDK app that installed the packed @gnldev/durable, as a user would. The package test
 * copies this folder into a scratch project, type-checks it against the published types (strict,
 * moduleResolution nodenext, library declarations checked too), compiles it and runs it with Node.
 *
 * The run: a refund agent whose second model call fails (a provider outage), so the first invocation
 * rejects after the refund was recorded. Calling again with the same runId replays step 0 and the
 * refund from the journal and calls the model only for the step that failed. A third call replays
 * everything and calls nothing.
 */
import assert from 'node:assert/strict';
import { stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { type DurableResult, gnlTool, type Journal, RunBusyError, runDurable } from '@gnldev/durable';
import { PostgresStorage as PostgresFromAlias } from '@gnldev/durable/postgres';
import { PGliteStorage, PostgresStorage, storageFromEnv } from '@gnldev/durable/storage';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function agent() {
  const counts = { modelCalls: 0, refunds: 0 };
  const keys: string[] = [];
  let outage = true;
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      counts.modelCalls += 1;
      const step = options.prompt.filter((m) => m.role === 'assistant').length;
      if (step === 1 && outage) {
        outage = false;
        throw new Error('provider outage');
      }
      return {
        content:
          step === 0
            ? [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'refund', input: JSON.stringify({ orderId: 'o_17', amount: 40 }) }]
            : [{ type: 'text', text: 'Refunded 40 for o_17.' }],
        finishReason: { unified: step === 0 ? 'tool-calls' : 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  const refund = gnlTool(
    tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      // idempotencyKey is typed by the package's augmentation of the SDK's ToolExecutionOptions.
      execute: async ({ orderId, amount }, { idempotencyKey }) => {
        const key: string | undefined = idempotencyKey;
        counts.refunds += 1;
        if (key) keys.push(key);
        return { refundId: `r_${orderId}`, amount };
      },
    }),
    { sideEffect: true, idempotency: 'args' },
  );
  return { model, tools: { refund }, counts, keys };
}

async function crashAndResume(journal: Journal, runId: string) {
  const a = agent();
  const call = () => runDurable({ runId, journal, model: a.model, tools: a.tools, stopWhen: stepCountIs(5), maxRetries: 0, prompt: 'Refund o_17' });

  await assert.rejects(call(), /provider outage/);
  assert.deepEqual(a.counts, { modelCalls: 2, refunds: 1 });
  assert.equal((await journal.getRun(runId))?.status, 'failed');

  const resumed: DurableResult<typeof a.tools> = await call();
  assert.equal(resumed.status, 'completed');
  if (resumed.status !== 'completed') return;
  const text: string = resumed.text;
  assert.equal(text, 'Refunded 40 for o_17.');
  assert.equal(resumed.replayedSteps, 1);
  assert.deepEqual(a.counts, { modelCalls: 3, refunds: 1 });

  const replayed = await call();
  assert.equal(replayed.status === 'completed' && replayed.replayedSteps, 2);
  assert.deepEqual(a.counts, { modelCalls: 3, refunds: 1 });
  assert.equal(a.keys.length, 1);
  assert.match(a.keys[0] ?? '', /^[A-Za-z0-9_-]{49}$/);
  return { ...a.counts, events: (await journal.events(runId)).map((e) => e.type) };
}

/** Both entry points share one copy of the core: an error thrown by storage is an instance of the class the core exports. */
async function oneCore(journal: Journal) {
  const hold = await journal.hold('held-twice');
  try {
    const second = await journal.hold('held-twice').catch((e: unknown) => e);
    assert.ok(second instanceof RunBusyError);
    assert.ok(RunBusyError.isInstance(second));
  } finally {
    await hold.release();
  }
}

/** Never called: lines the type checker must refuse, so the types are real and not `any`. */
export function typeErrors(journal: Journal) {
  const { tools } = agent();
  // @ts-expect-error idempotency is 'call' | 'args'
  gnlTool(tools.refund, { idempotency: 'always' });
  // @ts-expect-error a decision says who made it
  void journal.approve({ runId: 'r', toolCallId: 'c' });
  // @ts-expect-error the outcome of an unknown side effect is 'done' or 'not-done'
  void journal.resolveSideEffect({ runId: 'r', toolCallId: 'c', outcome: 'maybe', by: 'ops' });
  // @ts-expect-error runDurable needs a journal
  void runDurable({ runId: 'r', model: agent().model, prompt: 'x' });
  // @ts-expect-error PostgresStorage needs a connection string
  new PostgresStorage({});
  return storageFromEnv;
}

const results: Record<string, unknown> = {};
const embedded = new PGliteStorage();
try {
  results.pglite = await crashAndResume(embedded.runs, 'consumer:pglite');
  await oneCore(embedded.runs);
} finally {
  await embedded.close();
}
assert.equal(PostgresFromAlias, PostgresStorage);
const url = process.env.CONSUMER_DATABASE_URL;
if (url) {
  const server = new PostgresFromAlias({ connectionString: url });
  try {
    results.postgres = await crashAndResume(server.runs, `consumer:postgres:${Date.now()}:${process.pid}`);
  } finally {
    await server.close();
  }
}
console.log(JSON.stringify(results));
