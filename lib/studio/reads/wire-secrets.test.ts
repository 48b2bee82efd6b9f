/**
 * What the Studio sends the browser (pages, JSON routes, event streams and the inbox all go through
 * wire.ts) never holds a secret: a run journaled on a real PGlite journal with an apiKey in a tool's
 * arguments, a password in its output and the model's arguments string, read back through the journal
 * (which opens the envelopes), is redacted by toWireEvent, toWireRun and jsonSafe.
 */
import { randomBytes } from 'node:crypto';
import { tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { gnlTool, REDACTED, runDurable } from '@/lib/durable';
import { PGliteStorage, secretsFromEnv } from '@/lib/durable/storage';
import { tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import { jsonSafe, toWireEvent, toWireRun } from './wire';

const API_KEY = 'sk-proj-W1reXq81mN0pLkR7sT2vW9xY4bC6dE3f';
const PASSWORD = 'correct-horse-battery-staple-9';

describe('Studio wire: secrets are redacted', () => {
  const storage = new PGliteStorage({ dataDir: tempDataDir(), secrets: secretsFromEnv({ GNL_JOURNAL_KEY: randomBytes(32).toString('base64') }) });
  afterAll(() => storage.close());
  beforeAll(() => storage.database(), 300_000); // PGlite's first start is slow on a loaded machine

  it('in every event, the run summary and the inbox values, with the other fields intact', async () => {
    const runId = uniqueRunId('wire-secrets');
    const connect = gnlTool(
      tool({
        inputSchema: z.object({ apiKey: z.string(), amount: z.number() }),
        execute: async (input) => ({ connected: true, amount: input.amount, session: { password: PASSWORD } }),
      }),
      { sideEffect: true, idempotency: 'args' },
    );
    const approve = tool({ inputSchema: z.object({ apiKey: z.string() }), needsApproval: true, execute: async () => 'ok' });
    const scripted = scriptedModel((step) =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'call-1', toolName: 'connect', input: { apiKey: API_KEY, amount: 40 } }] }
        : { toolCalls: [{ toolCallId: 'call-2', toolName: 'approve', input: { apiKey: API_KEY } }] },
    );
    const result = await runDurable({ runId, journal: storage.runs, model: scripted.model, tools: { connect, approve }, prompt: 'Connect' });
    expect(result.status).toBe('waiting-approval');

    const events = await storage.runs.events(runId);
    // The journal gives the runtime the plaintext...
    expect(JSON.stringify(events)).toContain(API_KEY);
    // ...the wire never does.
    const wire = JSON.stringify(events.map(toWireEvent));
    expect(wire).not.toContain(API_KEY);
    expect(wire).not.toContain(PASSWORD);
    expect(wire).not.toContain('$gnl:enc');
    expect(wire).toContain(REDACTED);
    expect(events.map(toWireEvent).find((e) => e.type === 'tool-call-start')).toMatchObject({ input: { apiKey: REDACTED, amount: 40 } });
    expect(events.map(toWireEvent).find((e) => e.type === 'tool-call-end')).toMatchObject({
      output: { connected: true, amount: 40, session: { password: REDACTED } },
    });
    const step = events.map(toWireEvent).find((e) => e.type === 'model-step') as { result: { content: { input: string }[] } };
    expect(JSON.parse(step.result.content[0]?.input as string)).toEqual({ apiKey: REDACTED, amount: 40 });

    const run = await storage.runs.getRun(runId);
    if (!run) throw new Error('run not found');
    const wireRun = JSON.stringify(toWireRun(run));
    expect(wireRun).not.toContain(API_KEY);
    expect(toWireRun(run).pending).toEqual([expect.objectContaining({ toolCallId: 'call-2', input: { apiKey: REDACTED } })]);
    expect(jsonSafe(run.pending[0]?.input)).toEqual({ apiKey: REDACTED });
    expect(jsonSafe(API_KEY)).toBe(REDACTED);
  });

  it('a Map and a Set in an output are shown (not as {}), their secrets redacted: a secret-named key, a field of a value, an API key as an item', () => {
    const output = {
      byName: new Map<unknown, unknown>([
        ['password', PASSWORD],
        ['account', { owner: 'Ada', apiKey: API_KEY }],
      ]),
      byNumber: new Map<unknown, unknown>([[7, 'seven']]),
      tokens: new Set([API_KEY, 'not a secret']),
    };
    const wire = jsonSafe({ output });
    expect(JSON.stringify(wire)).not.toContain(API_KEY);
    expect(JSON.stringify(wire)).not.toContain(PASSWORD);
    expect(wire).toEqual({
      output: {
        byName: { password: REDACTED, account: { owner: 'Ada', apiKey: REDACTED } },
        byNumber: [[7, 'seven']],
        tokens: [REDACTED, 'not a secret'],
      },
    });
  });
});
