/**
 * MCP tools under the door, against a real MCP server process (tests/support/mcp-server.ts: the MCP SDK
 * on stdio, started by the AI SDK's MCP client), on both journals. Judged by the server's own ledger file,
 * never by the agent's journal. A SIGKILL between the server's side effect and its record is in
 * e2e/crash/mcp-crash.test.ts.
 */
import type { MCPClient } from '@ai-sdk/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childArgs } from '@/tests/support/child-bundles';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { callsOf, connectMcpServer, newLedger, readLedger } from '@/tests/support/mcp-service';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import {
  durableMcpTools,
  idempotencyKey,
  McpDeclarationError,
  type McpToolDeclaration,
  type RecordedEvent,
  runDurable,
  SideEffectRetryBlockedError,
} from '../index';

const connect = (ledger: string) => connectMcpServer({ serverArgs: childArgs('tests/support/mcp-server.ts'), ledger });

// One server for the file (each test its own order ids); the replay test starts a second, fresh one.
const ledger = newLedger();
let client: MCPClient;
/** The process of the file's server, as its ledger names it. */
let serverPid: number | undefined;
beforeAll(async () => {
  client = await connect(ledger);
  serverPid = readLedger(ledger).servers[0];
});
afterAll(() => client?.close());

const DECLARED = {
  send_refund: { sideEffect: true },
  lookup_order: { sideEffect: false },
  delete_customer: 'omit',
} satisfies Record<string, McpToolDeclaration | 'omit'>;

/** Look the order up, refund it, answer. */
function refundScript(orderId: string, amount = 40) {
  return (step: number): ScriptedStep => {
    if (step === 0) return { toolCalls: [{ toolCallId: 'call-lookup', toolName: 'lookup_order', input: { orderId } }] };
    if (step === 1) return { toolCalls: [{ toolCallId: 'call-refund', toolName: 'send_refund', input: { orderId, amount } }] };
    return { text: `Done with ${orderId}.` };
  };
}

const ofType = <T extends RecordedEvent['type']>(events: RecordedEvent[], type: T) =>
  events.filter((e): e is Extract<RecordedEvent, { type: T }> => e.type === type);

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('durableMcpTools: declarations', () => {
  it('refuses a tool the server offers that nobody declared, and a declared one it does not offer, naming them', async () => {
    const undeclared = await rejection(durableMcpTools({ client, tools: { send_refund: { sideEffect: true }, lookup_order: { sideEffect: false } } }));
    expect(McpDeclarationError.isInstance(undeclared)).toBe(true);
    expect(undeclared).toMatchObject({ undeclared: ['delete_customer'], notOffered: [] });
    expect((undeclared as Error).message).toContain('delete_customer');

    const misspelt = await rejection(durableMcpTools({ client, tools: { ...DECLARED, send_refund: 'omit', send_refunds: { sideEffect: true } } }));
    expect(misspelt).toMatchObject({ name: 'McpDeclarationError', undeclared: [], notOffered: ['send_refunds'] });

    await expect(durableMcpTools({ client, tools: { ...DECLARED, lookup_order: { sideEffect: false, errorResult: 'not-performed' } } })).rejects.toThrow(
      /lookup_order: errorResult applies to side effects/,
    );
    await expect(durableMcpTools({ client, tools: { ...DECLARED, lookup_order: { sideEffect: false, retrySafe: true } } })).rejects.toThrow(
      /lookup_order: gnlTool: retrySafe applies to side-effecting tools/,
    );
    // An omitted tool is not handed to the run.
    expect(Object.keys(await durableMcpTools({ client, tools: DECLARED }))).toEqual(['send_refund', 'lookup_order']);
    expect(readLedger(ledger).calls.filter((c) => c.tool === 'delete_customer')).toEqual([]);
  });
});

describeEachJournal('MCP tools through the door', (target) => {
  const { journal } = target.open();

  it('a side effect runs once on the server, journaled with its key; a replay answers from the journal and never asks a fresh server process', async () => {
    const runId = uniqueRunId('mcp');
    const orderId = `o_${target.name}_replay`;
    const first = scriptedModel((step) => {
      if (step === 2) throw new Error('model unavailable');
      return refundScript(orderId)(step);
    });
    const tools = await durableMcpTools({ client, tools: DECLARED });
    // The model fails after the refund: the run stops (run-fail) with the refund recorded.
    await expect(runDurable({ runId, journal, model: first.model, tools, prompt: `Refund ${orderId}` })).rejects.toThrow('model unavailable');
    expect(callsOf(readLedger(ledger), 'send_refund', orderId)).toEqual([{ pid: serverPid, tool: 'send_refund', orderId }]);
    expect(readLedger(ledger).refunds[orderId]).toBe(1);

    const key = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'send_refund' });
    const events = await journal.events(runId);
    expect(ofType(events, 'tool-call-start')).toMatchObject([
      { toolName: 'send_refund', toolCallId: 'call-refund', sideEffect: true, attempt: 1, idempotencyKey: key, input: { orderId, amount: 40 } },
    ]);
    expect(ofType(events, 'tool-call-end')).toMatchObject([
      { toolName: 'lookup_order', source: 'executed', input: { orderId } },
      { toolName: 'send_refund', source: 'executed', idempotencyKey: key, output: { structuredContent: { refundId: `r_${orderId}`, execution: 1 } } },
    ]);

    // Again with the same runId, through a new server process on the same ledger.
    const fresh = await connect(ledger);
    const freshPid = readLedger(ledger).servers.at(-1);
    expect(freshPid).not.toBe(serverPid);
    try {
      const second = scriptedModel(refundScript(orderId));
      const result = await runDurable({
        runId,
        journal,
        model: second.model,
        tools: await durableMcpTools({ client: fresh, tools: DECLARED }),
        prompt: `Refund ${orderId}`,
      });
      expect(result.status).toBe('completed');
      expect(second.calls()).toBe(1); // only the step after the refund
      expect(JSON.stringify(second.prompts[0])).toContain(`r_${orderId}`);
    } finally {
      await fresh.close();
    }
    const after = readLedger(ledger);
    expect(after.calls.filter((c) => c.pid === freshPid)).toEqual([]);
    expect(callsOf(after, 'lookup_order', orderId)).toHaveLength(1);
    expect(after.refunds[orderId]).toBe(1);
    expect(ofType(await journal.events(runId), 'tool-call-end')).toHaveLength(2);
  });

  it('an error result of a side effect may have acted: journaled as the call’s error, the run blocks, the server is not asked again', async () => {
    const runId = uniqueRunId('mcp-error');
    const orderId = `o_${target.name}_unknown`;
    const tools = await durableMcpTools({ client, tools: DECLARED });
    const invoke = () => runDurable({ runId, journal, model: scriptedModel(refundScript(orderId, 400)).model, tools, prompt: `Refund ${orderId}` });
    const blocked = await rejection(invoke());
    expect(SideEffectRetryBlockedError.isInstance(blocked)).toBe(true);
    const key = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'send_refund' });
    expect(blocked).toMatchObject({ toolName: 'send_refund', idempotencyKey: key });
    expect(ofType(await journal.events(runId), 'tool-call-error')).toMatchObject([
      {
        toolName: 'send_refund',
        idempotencyKey: key,
        retryable: true,
        error: { name: 'McpToolError', message: expect.stringContaining('over the refund limit') },
      },
    ]);
    expect((await journal.getRun(runId))?.status).toBe('blocked');

    expect(SideEffectRetryBlockedError.isInstance(await rejection(invoke()))).toBe(true);
    expect(callsOf(readLedger(ledger), 'send_refund', orderId)).toHaveLength(1);
  });

  it("an error result of a side effect declared errorResult 'not-performed' is final: the model reads it, nothing runs again", async () => {
    const runId = uniqueRunId('mcp-refused');
    const orderId = `o_${target.name}_refused`;
    const tools = await durableMcpTools({ client, tools: { ...DECLARED, send_refund: { sideEffect: true, errorResult: 'not-performed' } } });
    const model = scriptedModel(refundScript(orderId, 400));
    const result = await runDurable({ runId, journal, model: model.model, tools, prompt: `Refund ${orderId}` });
    expect(result.status).toBe('completed');
    const events = await journal.events(runId);
    expect(ofType(events, 'tool-call-start')).toMatchObject([{ toolName: 'send_refund', sideEffect: true }]);
    expect(ofType(events, 'tool-call-error')).toMatchObject([
      { toolName: 'send_refund', retryable: false, error: { name: 'ToolNotPerformedError', message: expect.stringContaining('over the refund limit') } },
    ]);
    expect(JSON.stringify(model.prompts.at(-1))).toContain('over the refund limit');
    expect(callsOf(readLedger(ledger), 'send_refund', orderId)).toHaveLength(1);
  });

  it('an error result of a read-only tool is retried like any read-only throw; the last one goes to the model', async () => {
    const runId = uniqueRunId('mcp-lookup');
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'call-lookup', toolName: 'lookup_order', input: { orderId: 'o_missing' } }] } : { text: 'No such order.' };
    const model = scriptedModel(script);
    const tools = await durableMcpTools({ client, tools: { ...DECLARED, lookup_order: { sideEffect: false, maxRetries: 1, retryDelayMs: 0 } } });
    const before = callsOf(readLedger(ledger), 'lookup_order', 'o_missing').length;
    expect((await runDurable({ runId, journal, model: model.model, tools, prompt: 'Find o_missing' })).status).toBe('completed');
    expect(ofType(await journal.events(runId), 'tool-call-error').map((e) => [e.error.name, e.retryable])).toEqual([
      ['McpToolError', true],
      ['McpToolError', false],
    ]);
    expect(JSON.stringify(model.prompts.at(-1))).toContain('no order o_missing');
    expect(callsOf(readLedger(ledger), 'lookup_order', 'o_missing').length - before).toBe(2);
  });
});
