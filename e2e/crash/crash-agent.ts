/**
 * The crash suite's child process: one refund agent run, configured by environment variables (protocol.ts),
 * that SIGKILLs ITSELF at its crash point (a real kill: no finally, no flush, no release).
 *
 *   node --import tsx e2e/crash/crash-agent.ts
 *
 * The agent: lookupOrder (read-only, GET /orders/:id) -> refund (side effect, POST /refunds with
 * options.idempotencyKey as the Idempotency-Key header) -> final text, driven by the scripted model.
 * Every REAL model call appends a line to the model log before the model answers (recorded steps are
 * replayed by runDurable and never reach it). Ends with one JSON line on stdout and exit code 0.
 * In 'mcp' mode the two tools are a real MCP server's instead (protocol.ts).
 */
import { appendFileSync } from 'node:fs';
import { generateText, stepCountIs, type Tool, tool } from 'ai';
import { z } from 'zod';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockEmbeddingModelV4, MockLanguageModelV4 } from 'ai/test';
import {
  durableMcpTools,
  type GnlToolOptions,
  gnlTool,
  type Journal,
  type JournalEvent,
  type McpClientLike,
  type MemoryStore,
  memoryTools,
  RunBusyError,
  runDurable,
  SideEffectRetryBlockedError,
  streamDurable,
} from '@/lib/durable';
import { PGliteStorage, PostgresStorage } from '@/lib/durable/storage';
import { type ScriptedStep, scriptedModel, streamParts } from '@/tests/support/scripted-model';
import { crashingJournal } from './crashing-journal';
import {
  type AgentMode,
  type AgentOutcome,
  APPEND_BEGIN,
  type CrashPoint,
  ENV,
  FINAL_TEXT,
  type JournalKind,
  type ModelLogLine,
  memoryOf,
  ORDER_ID,
  PROMPT,
  RECALL_QUERY,
  type Scenario,
} from './protocol';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`crash-agent: ${name} is not set`);
  return value;
}

const journalKind = required(ENV.journal) as JournalKind;
const scenario = required(ENV.scenario) as Scenario;
const crashPoint = (process.env[ENV.crashPoint] || 'none') as CrashPoint;
const modelLog = required(ENV.modelLog);
const mode = (process.env[ENV.mode] || 'generate') as AgentMode;
const serviceUrl = mode === 'mcp' ? '' : required(ENV.serviceUrl);
/** The tools' names: the agent's own, or the MCP server's. */
const NAMES = mode === 'mcp' ? { lookup: 'lookup_order', refund: 'send_refund' } : { lookup: 'lookupOrder', refund: 'refund' };

function die(why: string): never {
  process.stderr.write(`[crash-agent ${process.pid}] SIGKILL ${why}\n`);
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL to oneself is delivered before kill() returns; this line is never reached.
  throw new Error('unreachable: SIGKILL did not kill the process');
}

/** For kills from outside aimed inside an append: one stderr line as each real append begins. */
function announce(events: readonly JournalEvent[]): void {
  if (crashPoint === 'announce-appends') process.stderr.write(`${APPEND_BEGIN} ${events.map((e) => e.type).join(',')}\n`);
}

function logModel(line: ModelLogLine): void {
  appendFileSync(modelLog, `${JSON.stringify(line)}\n`);
}

/** After a model step committed: say so in the model log, so a later real call of that step shows as a repeat. */
function logRecordedSteps(events: readonly JournalEvent[]): void {
  for (const event of events) if (event.type === 'model-step') logModel({ pid: process.pid, recorded: event.step });
}

function script(step: number): ScriptedStep {
  // 'recall' mode: the model asks its memory first, then goes on as in the other modes.
  if (mode === 'recall')
    return step === 0 ? { toolCalls: [{ toolCallId: 'call-recall', toolName: 'recall', input: { query: RECALL_QUERY } }] } : plainScript(step - 1);
  return plainScript(step);
}

function plainScript(step: number): ScriptedStep {
  if (step === 0) return { toolCalls: [{ toolCallId: 'call-lookup', toolName: NAMES.lookup, input: { orderId: ORDER_ID } }] };
  if (step === 1) return { toolCalls: [{ toolCallId: 'call-refund', toolName: NAMES.refund, input: { orderId: ORDER_ID, amount: 40 } }] };
  return { text: FINAL_TEXT };
}

const scripted = scriptedModel((step, prompt) => {
  // In memory mode: what the model was given besides the run's own prompt (the thread's messages, the recall).
  const seen =
    mode === 'memory'
      ? prompt.flatMap((m) =>
          m.role === 'system' ? [m.content] : m.role === 'user' ? m.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])) : [],
        )
      : mode === 'recall'
        ? prompt.flatMap((m) =>
            m.role === 'tool'
              ? m.content.flatMap((part) => (part.type === 'tool-result' && part.toolName === 'recall' ? [JSON.stringify(part.output)] : []))
              : [],
          )
        : undefined;
  logModel({ pid: process.pid, step, ...(seen ? { seen } : {}) });
  return script(step);
});

/** A deterministic embedding model: the words of a text hashed into 32 dimensions. */
const embeddingModel = new MockEmbeddingModelV4({
  provider: 'test',
  modelId: 'words-32',
  maxEmbeddingsPerCall: 100,
  doEmbed: async ({ values }) => {
    logModel({ pid: process.pid, embedded: values.map(String) });
    return {
      embeddings: values.map((value) => {
        const v = new Array<number>(32).fill(0);
        for (const word of String(value)
          .toLowerCase()
          .match(/[a-z0-9_]+/g) ?? []) {
          let h = 0;
          for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
          v[h % 32] = (v[h % 32] ?? 0) + 1;
        }
        return v;
      }),
      warnings: [],
    };
  },
});

/** The journal's memory store; at `in-memory-append-after-write` the child dies right after the turn's append wrote. */
function memoryStore(store: MemoryStore): MemoryStore {
  if (crashPoint !== 'in-memory-append-after-write') return store;
  const add: MemoryStore['add'] = async (request) => {
    const written = await store.add(request);
    die('inside the memory append, after the store wrote the turn, before the journal recorded it');
    return written;
  };
  // The store is a class instance: its other methods keep their own `this`.
  return new Proxy(store, {
    get: (target, name) => {
      if (name === 'add') return add;
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The same script streamed (doStream), one part per read so a kill lands between parts: at a
 * `mid-stream-*` crash point the child dies inside that step's stream, before its finish.
 */
const streaming = new MockLanguageModelV4({
  provider: 'scripted',
  modelId: 'scripted-v1',
  doStream: async (options) => {
    const step = options.prompt.filter((m) => m.role === 'assistant').length;
    logModel({ pid: process.pid, step });
    const parts = streamParts(script(step), step);
    const [where, at] = crashPoint.startsWith('mid-stream-') ? crashPoint.split(':') : [];
    const killBefore = Number(at) === step ? parts.findIndex((p) => p.type === (where === 'mid-stream-before-call' ? 'tool-input-delta' : 'finish')) : -1;
    let next = 0;
    return {
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        pull(controller) {
          if (next === killBefore)
            die(
              `inside model step ${step}'s stream, ${where === 'mid-stream-before-call' ? 'as its call began' : 'after its call came out'}, before its finish`,
            );
          const part = parts[next++];
          if (part) controller.enqueue(part);
          else controller.close();
        },
      }),
    };
  },
});

const lookupOrder = tool({
  description: 'Look up an order (read-only).',
  inputSchema: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => {
    const res = await fetch(`${serviceUrl}/orders/${encodeURIComponent(orderId)}`);
    if (!res.ok) throw new Error(`order lookup failed: HTTP ${res.status}`);
    return (await res.json()) as { orderId: string; total: number; currency: string; placedAt: string };
  },
});

type RefundInput = { orderId: string; amount: number };
type RefundOutput = { refundId: string; orderId: string; amount: number; execution: number };

const refundTool = tool({
  description: 'Refund an order (changes the outside world).',
  inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
  execute: async ({ orderId, amount }, { idempotencyKey }) => {
    const res = await fetch(`${serviceUrl}/refunds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
      body: JSON.stringify({ orderId, amount }),
    });
    if (!res.ok) throw new Error(`refund failed: HTTP ${res.status}`);
    const result = (await res.json()) as RefundOutput;
    // The worst moment: the service has refunded and answered; the journal does not know yet.
    if (crashPoint === 'in-refund-after-response') die('inside refund, after the service answered, before the result was recorded');
    return result;
  },
});

function refundOptions(): GnlToolOptions<RefundInput, RefundOutput> {
  switch (scenario) {
    case 'plain':
      return { sideEffect: true };
    case 'retrySafe':
      return { sideEffect: true, retrySafe: true };
    case 'approval':
      return { sideEffect: true, needsApproval: true };
    case 'check':
      return {
        sideEffect: true,
        // Asks the refund service whether the work under this key happened.
        check: async ({ idempotencyKey }) => {
          const res = await fetch(`${serviceUrl}/refunds/${encodeURIComponent(idempotencyKey)}`);
          if (res.status === 404) return { done: false };
          if (res.ok) return { done: true, output: ((await res.json()) as { result: RefundOutput }).result };
          return { done: 'unknown', reason: `refund service answered HTTP ${res.status}` };
        },
      };
    case 'control':
      throw new Error('the control group uses no gnlTool');
  }
}

/**
 * 'mcp' mode: the tools of a real MCP server, a process this child starts (it ends with this child: its
 * stdin closes). At `in-refund-after-response` the child dies once the server has refunded and answered.
 */
async function mcpTools(): Promise<{ tools: Record<string, Tool>; close(): Promise<void> }> {
  if (scenario !== 'plain') throw new Error(`crash-agent: 'mcp' mode runs scenario 'plain' only, not ${scenario}`);
  const { connectMcpServer } = await import('@/tests/support/mcp-service');
  const client = await connectMcpServer({ serverArgs: JSON.parse(required(ENV.mcpServer)) as string[], ledger: required(ENV.mcpLedger) });
  const callTool: McpClientLike['callTool'] = async (request) => {
    const result = await client.callTool(request);
    if (crashPoint === 'in-refund-after-response' && request.name === NAMES.refund)
      die('inside send_refund, after the MCP server answered, before the result was recorded');
    return result;
  };
  const declared = { send_refund: { sideEffect: true }, lookup_order: { sideEffect: false }, delete_customer: 'omit' } as const;
  const tools = await durableMcpTools({ client: { tools: () => client.tools(), callTool }, tools: declared });
  return { tools, close: () => client.close() };
}

function errorFields(error: unknown): { name: string; message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

async function openJournal(): Promise<{ journal: Journal; memory: MemoryStore; close(): Promise<void> }> {
  if (journalKind === 'pglite') {
    const storage = new PGliteStorage({ dataDir: required(ENV.dataDir) });
    return { journal: storage.runs, memory: storage.memory, close: () => storage.close() };
  }
  if (journalKind === 'postgres') {
    const storage = new PostgresStorage({ connectionString: required(ENV.databaseUrl), max: 2 });
    return { journal: storage.runs, memory: storage.memory, close: () => storage.close() };
  }
  throw new Error(`no journal for ${journalKind}`);
}

async function runWithGnl(): Promise<AgentOutcome> {
  const runId = required(ENV.runId);
  const opened = await openJournal();
  let mcp: Awaited<ReturnType<typeof mcpTools>> | undefined;
  try {
    mcp = mode === 'mcp' ? await mcpTools() : undefined;
    const journal = crashingJournal(opened.journal, {
      dieAfter: crashPoint.startsWith('after:') ? crashPoint.slice('after:'.length) : undefined,
      die,
      beforeAppend: announce,
      afterAppend: logRecordedSteps,
    });
    const tools = mcp ? mcp.tools : { lookupOrder, refund: gnlTool(refundTool, refundOptions()) };
    const options = { runId, journal, tools, stopWhen: stepCountIs(10), prompt: PROMPT };
    const memory = { store: memoryStore(opened.memory), ...memoryOf(runId), lastMessages: 5, recall: { embeddingModel, topK: 2 } };
    const recallTool: Record<string, Tool> =
      mode === 'recall' ? { recall: memoryTools({ store: opened.memory, resource: memoryOf(runId).resource, embeddingModel }).recall as Tool } : {};
    const result =
      mode === 'stream'
        ? await streamDurable({ ...options, model: streaming }).durable
        : await runDurable({ ...options, tools: { ...options.tools, ...recallTool }, model: scripted.model, ...(mode === 'memory' ? { memory } : {}) });
    if (result.status === 'completed') return { outcome: 'completed', pid: process.pid, text: result.text, replayedSteps: result.replayedSteps };
    if (result.status === 'canceled') throw new Error(`unexpected: run canceled by ${result.by}`);
    return {
      outcome: 'waiting-approval',
      pid: process.pid,
      pending: result.pending.map((p) => ({ toolCallId: p.toolCallId, toolName: p.toolName, input: p.input, requestedAt: p.requestedAt.toISOString() })),
    };
  } catch (error) {
    if (SideEffectRetryBlockedError.isInstance(error)) {
      const { runId: blockedRunId, toolCallId, toolName, input, idempotencyKey } = error;
      return { outcome: 'blocked', pid: process.pid, error: { ...errorFields(error), runId: blockedRunId, toolCallId, toolName, input, idempotencyKey } };
    }
    if (RunBusyError.isInstance(error)) return { outcome: 'busy', pid: process.pid, error: errorFields(error) };
    if (error instanceof Error && error.name === 'DataDirLockedError') {
      const holder = (error as Error & { holder: { pid: number; host: string } }).holder;
      return { outcome: 'busy', pid: process.pid, error: { ...errorFields(error), holder: { pid: holder.pid, host: holder.host } } };
    }
    throw error;
  } finally {
    await Promise.race([Promise.all([opened.close(), mcp?.close()]), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }
}

/** The seed's control group: the same agent with plain generateText, rerun from the top after a crash. */
async function runWithoutGnl(): Promise<AgentOutcome> {
  const result = await generateText({ model: scripted.model, tools: { lookupOrder, refund: refundTool }, stopWhen: stepCountIs(10), prompt: PROMPT });
  return { outcome: 'completed', pid: process.pid, text: result.text };
}

async function main(): Promise<AgentOutcome> {
  try {
    return journalKind === 'none' ? await runWithoutGnl() : await runWithGnl();
  } catch (error) {
    return { outcome: 'error', pid: process.pid, error: { ...errorFields(error), stack: error instanceof Error ? error.stack : undefined } };
  }
}

const outcome = await main();
process.stdout.write(`${JSON.stringify(outcome)}\n`, () => process.exit(0));
